"""The rules, one module each: a function of the LintContext that returns Hits, listed in roadmap/registry.py.

A rule imports analysis and the layers below it, never the registry or the runner (pyproject.toml's
[tool.importlinter] contracts check it)."""
