"""What every command shares about its usage: the exit codes, the profiles and output targets,
and the check that a GLSL-only profile is not asked for SPIR-V.

It lives apart from ``cli.py`` so that the commands' engines (``batch/runner.py``, ``check.py``)
use it without importing the command line (tests/test_layers.py).  Imports stay light: the
start-up of ``xlate --help`` loads this module.

Exit codes (stable, every command):
  0  success (warnings may have been printed)
  1  an input has errors (diagnostics printed to stderr)
  2  usage error (bad arguments, unreadable input, unwritable output)
  3  the toolchain (glslang / SPIRV-Tools) is unavailable
"""
from __future__ import annotations

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_TOOLCHAIN = 0, 1, 2, 3
# the GLSL profiles (xlate.backends.glsl.PROFILES, not imported: start-up stays light; a test
# checks that both agree); the last two give GLSL only (no SPIR-V environment takes them;
# xlate.api.spirv_refusal says why)
PROFILES = ("glsl450", "vulkan", "glsl330", "es310")
GLSL_ONLY_PROFILES = ("glsl330", "es310")
#: what ``batch`` and ``check --targets`` write or validate
OUTPUT_TARGETS = ("glsl", "spirv", "reflect")


def spirv_profile_error(profile: str | None, targets) -> str | None:
    """The usage error of asking a GLSL-only profile for SPIR-V, or None."""
    if profile in GLSL_ONLY_PROFILES and any(t in ("spirv", "spirv-asm") for t in targets):
        from .api import spirv_refusal
        return f"xlate: error: {spirv_refusal(profile)}"
    return None
