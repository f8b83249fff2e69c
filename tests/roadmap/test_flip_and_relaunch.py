"""A directive to flip a flag's default is done by the diff that flipped it (RL101); undated run folders are evidence
dated by git, and a folder named as a rerun of a run answers a request to rerun it (RL102); a log's "next steps"
section asks, a summary line quotes current figures, and a Run column names each row's series (RL201).

Voices: a terse Go TODO.md (one-dash flags, `flag.Bool`), a Python service's argparse notes, a Rust CLI's clap
notes, a German ops checklist; a French lab's experiment journal, an English ML notebook with a "Next steps"
section. Negative controls beside each: a flip still off, a help-text-only change, a flag with a similar name, a
directive asking the other way, a rerun of another experiment, a struck figure, a target."""

from __future__ import annotations

from roadmap.analysis.default_flips import spellings
from roadmap.checks.flipped_already import flip_asks
from roadmap.config import Config
from roadmap.evidence import load_evidence
from roadmap.history.tree import Tree
from roadmap.lint import LintOptions, lint


def _lint(repo, *codes):
    return lint(repo.path, LintOptions(use_cache=False, select=codes)).findings


def _on(findings, repo, path, text, code=None):
    lines = (repo.path / path).read_text().split("\n")
    return [f for f in findings if f.path == path and text in lines[f.line - 1] and (code is None or f.code == code)]


# --- a directive to flip a default ------------------------------------------------------------------------------


def test_flip_asks_reads_the_flag_and_the_way():
    assert flip_asks("flip `-http2` default to true once all the lbs are on envoy 1.30", ("-http2",)) == [
        ("-http2", True)
    ]
    assert flip_asks("Make `--compress` the default.", ("--compress",)) == [("--compress", True)]
    assert flip_asks("Enable `ENABLE_H2C` by default after the soak.", ("ENABLE_H2C",)) == [("ENABLE_H2C", True)]
    assert flip_asks("Change the default of `--tls-legacy` to false.", ("--tls-legacy",)) == [("--tls-legacy", False)]
    assert flip_asks("`--http2` standardmäßig aktivieren", ("--http2",)) == [("--http2", True)]
    assert flip_asks("Activer `--http2` par défaut.", ("--http2",)) == [("--http2", True)]
    # no ask: a state, a negated ask, a switch turned on at run time, a flip that says no way
    assert flip_asks("`-pprof` stays off by default. it exposes heap dumps, do not flip it", ("-pprof",)) == []
    assert flip_asks("never make `--fast` the default", ("--fast",)) == []
    assert flip_asks("turn on `--http2` for the canary", ("--http2",)) == []
    assert flip_asks("flip the `--http2` default", ("--http2",)) == []


def test_one_dash_flags_are_spelled_without_the_dash():
    assert {"http2"} <= spellings("-http2")
    assert {"max-conns", "max_conns", "MaxConns"} <= spellings("-max-conns")


GO = """package main

import "flag"

func main() {
	useH2 := flag.Bool("http2", false, "serve h2c as well as HTTP/1.1")
	h2Push := flag.Bool("http2-push", false, "push assets")
	pprof := flag.Bool("pprof", false, "expose /debug/pprof")
	flag.Parse()
	_, _, _ = useH2, h2Push, pprof
}
"""

TODO = """# todo

- flip `-http2` default to true once all the lbs are on envoy 1.30
- flip `-http2-push` default to true when browsers still care
- `-pprof` stays off by default. it exposes heap dumps, do not flip it
"""


def test_go_flag_bool_flip_lands_the_directive(git_repo):
    repo = git_repo()
    repo.commit({"cmd/edged/main.go": GO}, "edged: initial import", "2026-05-04")
    repo.commit({"TODO.md": TODO}, "add TODO.md", "2026-05-06")
    repo.commit(
        {
            "cmd/edged/main.go": GO.replace(
                '"pprof", false, "expose /debug/pprof"', '"pprof", false, "expose pprof (never public)"'
            )
        },
        "edged: spell out what -pprof exposes",
        "2026-05-10",
    )
    found = _lint(repo, "RL101", "RL104")
    assert not found  # only a help text changed
    repo.commit(
        {
            "cmd/edged/main.go": GO.replace('"http2", false', '"http2", true').replace(
                '"pprof", false, "expose /debug/pprof"', '"pprof", false, "expose pprof (never public)"'
            )
        },
        "edged: turn on h2c",
        "2026-05-20",
    )
    found = _lint(repo, "RL101", "RL104")
    hit = _on(found, repo, "TODO.md", "flip `-http2` default", "RL101")
    assert hit and hit[0].severity == "error" and 'flag.Bool("http2", true' in hit[0].message
    assert not _on(found, repo, "TODO.md", "`-http2-push`")  # a flag with a longer, similar name: still false
    assert not _on(found, repo, "TODO.md", "`-pprof`")


ARGPARSE = """import argparse

p = argparse.ArgumentParser()
p.add_argument("--compress", action="store_true", help="gzip responses")
p.add_argument("--tls-legacy", default=True, help="accept TLS 1.0")
"""

PY_NOTES = """# Service notes

## Next steps

- Make `--compress` the default once the CDN strips double gzip.
- Change the default of `--tls-legacy` to false.
"""


def test_argparse_flips_both_ways(git_repo):
    repo = git_repo()
    repo.commit({"svc/cli.py": ARGPARSE}, "cli", "2026-03-01")
    repo.commit({"NOTES.md": PY_NOTES}, "notes", "2026-03-02")
    # --tls-legacy turned ON (asked: off), --compress untouched
    repo.commit({"svc/cli.py": ARGPARSE.replace("default=True", 'default="yes"')}, "cli: tidy", "2026-03-05")
    assert not _lint(repo, "RL101")
    v2 = ARGPARSE.replace("default=True, help", "default=False, help").replace(
        'action="store_true"', "action=argparse.BooleanOptionalAction, default=True"
    )
    repo.commit({"svc/cli.py": v2}, "cli: gzip for everyone; legacy TLS off", "2026-03-09")
    found = _lint(repo, "RL101")
    assert _on(found, repo, "NOTES.md", "Make `--compress` the default", "RL101")
    assert _on(found, repo, "NOTES.md", "`--tls-legacy` to false", "RL101")


CLAP = """use clap::Parser;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value_t = false)]
    watch: bool,
    #[arg(long, default_value_t = false)]
    color: bool,
}
"""

RS_NOTES = """# cli TODO

- Flip `--watch` default to true.
- Flip `--color` default to true.
"""


def test_clap_default_value_t(git_repo):
    repo = git_repo()
    repo.commit({"src/args.rs": CLAP}, "args", "2026-04-01")
    repo.commit({"TODO.md": RS_NOTES}, "todo", "2026-04-02")
    v2 = CLAP.replace("default_value_t = false)]\n    watch", "default_value_t = true)]\n    watch")
    repo.commit({"src/args.rs": v2}, "args: watch mode", "2026-04-10")
    found = _lint(repo, "RL101")
    assert _on(found, repo, "TODO.md", "`--watch`", "RL101")
    assert not _on(found, repo, "TODO.md", "`--color`")


def test_a_flip_turned_back_lands_nothing(git_repo):
    repo = git_repo()
    repo.commit({"cmd/edged/main.go": GO}, "edged", "2026-05-04")
    repo.commit({"TODO.md": TODO}, "todo", "2026-05-06")
    repo.commit({"cmd/edged/main.go": GO.replace('"http2", false', '"http2", true')}, "edged: h2c", "2026-05-20")
    repo.commit({"cmd/edged/main.go": GO}, "edged: h2c off again (lb bug)", "2026-05-21")
    assert not _on(_lint(repo, "RL101"), repo, "TODO.md", "`-http2`")


# --- a relaunched run, undated run folders ----------------------------------------------------------------------


def test_undated_run_folders_are_dated_by_the_commit_that_added_them(git_repo):
    repo = git_repo()
    repo.commit({"runs/exp-05/metrics.json": '{"f1": 0.78}', "train.py": "x = 1\n"}, "exp-05", "2026-05-28")
    repo.commit({"runs/exp-07/metrics.json": '{"f1": 0.81}'}, "exp-07", "2026-06-02")
    store = load_evidence(Tree(repo.path), Config())
    assert {(e.series, e.date) for e in store} == {("exp-05", "2026-05-28"), ("exp-07", "2026-06-02")}
    lone = git_repo("lone")
    lone.commit({"runs/only/metrics.json": "{}"}, "one run", "2026-05-28")  # one folder is no home of runs
    assert len(load_evidence(Tree(lone.path), Config())) == 0
    dated = git_repo("dated")  # a dated run folder keeps its name's date; undated ones beside it are not dated by git
    dated.commit({"runs/20260301-a/metrics.json": "{}", "runs/b/metrics.json": "{}"}, "runs", "2026-05-28")
    assert {(e.series, e.date) for e in load_evidence(Tree(dated.path), Config())} == {("a", "2026-03-01")}


JOURNAL_V1 = """# Journal d'expériences — classification

Résumé : meilleur modèle à ce jour exp-07 (lr 3e-5), F1 macro 81,4 %.

Objectif : F1 macro ≥ 83 % sur la validation.

## Runs

| Date | Run | Config | F1 macro (%) | Remarques |
|---|---|---|---|---|
| 2026-05-28 | exp-05 | lr 5e-5 | 78,9 | |
| 2026-06-02 | exp-07 | lr 3e-5 | 81,4 | meilleur run |
| 2026-06-03 | exp-08 | lr 3e-5, 6 époques | ~~80,1~~ | invalide |

## Prochaines étapes

- Relancer exp-07 avec le dataloader corrigé.
- Relancer exp-05 avec 10 % de warmup.
"""


def test_relaunch_folder_answers_the_rerun_and_the_new_row_supersedes_the_summary(git_repo):
    repo = git_repo()
    repo.commit({"runs/exp-05/metrics.json": '{"run": "exp-05", "f1_macro": 0.789}'}, "exp-05", "2026-05-28")
    repo.commit({"runs/exp-07/metrics.json": '{"run": "exp-07", "f1_macro": 0.814}'}, "exp-07", "2026-06-02")
    repo.commit({"notes/journal-experiences.md": JOURNAL_V1}, "journal", "2026-06-04")
    found = _lint(repo, "RL102", "RL201")
    assert not found  # nothing relaunched, no newer row
    v2 = JOURNAL_V1.replace(
        "| invalide |\n", "| invalide |\n| 2026-06-09 | exp-07 | lr 3e-5 | 80,2 | relance après correctif |\n"
    )
    repo.commit(
        {
            "runs/exp-07-relance/metrics.json": '{"run": "exp-07", "f1_macro": 0.802}',
            "notes/journal-experiences.md": v2,
        },
        "Relance d'exp-07",
        "2026-06-09",
    )
    found = _lint(repo, "RL102", "RL201")
    path = "notes/journal-experiences.md"
    assert _on(found, repo, path, "Relancer exp-07", "RL102")
    assert _on(found, repo, path, "Résumé : meilleur modèle", "RL201")
    assert not _on(found, repo, path, "Relancer exp-05")  # another experiment
    assert not _on(found, repo, path, "Objectif")  # a target
    assert not _on(found, repo, path, "~~80,1~~")  # struck
    assert not _on(found, repo, path, "| 81,4 | meilleur run |")  # a dated row: that day's run


NOTEBOOK = """# Experiment log

Summary: best so far is lm-07 at val loss 2.41.

## Runs

| Date | Experiment | Val loss |
|---|---|---|
| 2026-01-10 | lm-05 | 2.55 |
| 2026-01-12 | lm-07 | 2.41 |

## Next steps

- Rerun lm-07 with the fixed tokenizer.
- Rerun lm-05 with warmup.
"""


def test_rerun_suffix_and_an_english_notebook(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "experiments/lm-05/results.json": '{"val_loss": 2.55}',
            "experiments/lm-07/results.json": '{"val_loss": 2.41}',
        },
        "runs",
        "2026-01-12",
    )
    repo.commit({"LOG.md": NOTEBOOK}, "log", "2026-01-13")
    repo.commit({"experiments/lm-07-rerun/results.json": '{"val_loss": 2.47}'}, "lm-07 again", "2026-01-20")
    found = _lint(repo, "RL102")
    assert _on(found, repo, "LOG.md", "Rerun lm-07", "RL102")
    assert not _on(found, repo, "LOG.md", "Rerun lm-05")
    # a variant is no rerun: lm-05-v2 does not answer "Rerun lm-05"
    repo.commit({"experiments/lm-05-v2/results.json": '{"val_loss": 2.50}'}, "lm-05 v2", "2026-01-21")
    assert not _on(_lint(repo, "RL102"), repo, "LOG.md", "Rerun lm-05")
