"""What the rules share: the LintContext, the typed derived facts (facts.py) and the analyses that compute
them (as-of points, stale directives and their surfaces, terms, references, states, claims). Imports
records, history and evidence; never a rule."""
