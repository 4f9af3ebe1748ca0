"""``python -m xlate``: the ``xlate`` command line (the console script's entry point)."""
from .console import main

if __name__ == "__main__":
    main()
