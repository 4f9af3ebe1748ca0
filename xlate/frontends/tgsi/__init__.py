"""Gallium TGSI frontend: text (``text.py``), binary tokens (``binary.py``), the dialect-level
model both produce (``model.py``), the text printer (``printer.py``) and lowering to the IR
(``lower.py``).  Opcodes: ``opcodes.py``."""
