"""gridsim's built-in levels, installed as the package data ``gridsim.builtin_levels``.

One folder per family (``nav/``, ...), one ``<name>.txt`` per level.
"""
