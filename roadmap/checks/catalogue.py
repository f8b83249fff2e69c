"""Every rule module, imported so it registers. Adding a rule = adding its module and one line here."""
# ruff: noqa: F401
import roadmap.checks.record_unreadable      # RL001
import roadmap.checks.path_missing           # RL301
import roadmap.checks.line_out_of_range      # RL302
import roadmap.checks.anchor_drifted         # RL303
import roadmap.checks.unknown_reference      # RL304
import roadmap.checks.state_contradiction    # RL401
import roadmap.checks.unused_suppression     # RL901
import roadmap.checks.directive_landed       # RL101
import roadmap.checks.rerun_done             # RL102
import roadmap.checks.premise_refuted        # RL103
import roadmap.checks.default_changed        # RL104
import roadmap.checks.figure_superseded      # RL201
import roadmap.checks.figure_unbacked       # RL202
import roadmap.checks.claim_stale            # RL402
import roadmap.checks.evidence_invalid       # RL501
