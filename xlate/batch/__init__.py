"""``xlate batch``: translate whole trees of programs in parallel, with a content-hash cache.

* :mod:`xlate.batch.outputs` - output names (``water.fp`` -> ``water.frag``, shared with
  ``xlate sync``) and the translation of one file into its output payloads;
* :mod:`xlate.batch.cache` - cache keys and records;
* :mod:`xlate.batch.runner` - walking the sources, the process pool, progress, summary;
* :mod:`xlate.batch.report` - the JSON and HTML reports.

Usage and file formats: ``docs/batch.md``.  Library use::

    from xlate.batch.runner import run_batch
    summary = run_batch(["shaders"], "build/shaders", jobs=4, targets=("glsl", "spirv"))

Nothing is imported here, so ``xlate check`` can use :mod:`xlate.batch.outputs` cheaply.
"""
