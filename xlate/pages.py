"""The Jinja environment of the HTML reports (``templates/report/``).

Both reports -- ``xlate batch --report FILE.html`` (:mod:`xlate.batch.report`) and ``xlate
verify --report FILE.html`` (:mod:`xlate.verify.report`) -- are one self-contained page each,
rendered from a template with autoescaping on (every path, message, source and GLSL line is
text, never markup) and ``StrictUndefined`` (a misspelt name fails the render instead of
printing nothing).  Data for the page's script goes through Jinja's ``tojson`` filter, which
escapes ``<``, ``>``, ``&`` and ``'`` so that no program text can close the ``<script>``
element; keys are sorted, so the same input gives the same bytes.

The templates live in the top-level ``templates/report/`` of a checkout and are shipped in the
wheel as ``xlate/templates/report/`` (pyproject's package-data), as the GLSL templates are.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path


def template_dir() -> Path:
    """templates/report of a checkout, or xlate/templates/report inside an installed wheel."""
    installed = Path(str(resources.files("xlate"))) / "templates" / "report"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[1] / "templates" / "report"


@lru_cache(maxsize=1)
def environment():
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template_dir())),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}
    return env


def render(name: str, **context) -> str:
    """The template ``name`` (e.g. ``batch.html.j2``) rendered with ``context``."""
    return environment().get_template(name).render(**context)
