"""Rules generalised from blind scenarios that failed (tests/roadmap/scenarios/PENDING), each stated in general
terms and checked here in other words than the scenario's, with a negative control beside it.

- A Blockers / Blocked by column of a status table names the work left for its row (RL101).
- A symbol written beside a `path:line` is code in that file, whatever it ends with (`aws_s3_bucket.logs` is no
  file name): a commit that changed the file without touching it did not do the row's work.
- A block labelled with the name in quotes defines it (HCL's `resource "type" "name" {`): RL303 finds where such a
  symbol went.
- A default given as a choice index or an enum value is a default like a boolean (RL104): 0 -> 1 of a choice, "off"
  -> "fast" of a mode turn it on; a one-word setting the record sets as code (`dither`) is a switch it can name.
- A dated evidence folder without a result.json keeps its result in its only JSON file or one named like a summary
  (`results/2026-05-14_ingest-1m/summary.json`): RL201 compares a row keyed by the series with it.
- "... the X we already have" in a commit message is what the commit builds on, not work it did (RL101).
- "The bottleneck is X" states a premise as "X is the bottleneck" does, and a denial drawn from it as a conclusion
  ("..., so adding workers won't help") is not the statement giving its subject up (RL103).
- CJK text has no spaces: its terms are the character bigrams of each run, less those holding a function character
  (的, 了, の, ...); 重新压测, 再計測, 재측정 ask for a rerun (RL102).
- An HTTP endpoint a directive names (`POST /v1/sessions`) is code: a commit that changed lines inside that route's
  handler (found by indentation, its path whole or in pieces, the method agreeing) has said the route's words and
  touched the work (RL101), whatever its message calls it.
"""

from __future__ import annotations

import json
from dataclasses import replace

from roadmap.analysis import default_flips as flips
from roadmap.analysis.anchors import locate
from roadmap.analysis.endpoints import _paths_of, endpoints
from roadmap.analysis.work import commit_work, terms_of
from roadmap.checks.premise_refuted import _denies, _states_premise
from roadmap.evidence.store import load_evidence
from roadmap.history.commit import Commit
from roadmap.history.tree import Tree
from roadmap.checks.default_changed import _word_settings
from roadmap.config import Config
from roadmap.lint import LintOptions, lint
from roadmap.records import parse_record
from roadmap.records.classify import Classifier
from roadmap.records.model import PathRef


def _findings(repo, *codes: str):
    return lint(repo.path, LintOptions(use_cache=False, select=codes)).findings


def _lines(repo, path: str, findings) -> list[str]:
    text = (repo.path / path).read_text().split("\n")
    return [text[f.line - 1] for f in findings if f.path == path]


# --- a Blockers column names work left --------------------------------------------------------------------------


def test_a_blocked_by_column_is_a_column_of_work():
    c = Classifier(Config())
    assert c.is_directive_column("Blockers") and c.is_directive_column("Blocked by")
    assert c.is_directive_column("Blocker") and c.is_directive_column("Blocked on")
    assert not c.is_directive_column("Blocking") and not c.is_directive_column("Owner")


RELEASE = """# Mobile release board

| Train | State | Lead | Blocked by |
|---|---|---|---|
| iOS 5.3 | ⛔ | @yuki | The push-notification entitlement is missing from `ios/App/App.entitlements`; TestFlight rejects the build until it is added |
| Android 5.3 | ⛔ | @omar | Play Console needs the data-safety form for location sharing; nobody has filled it in |
"""


def test_a_cleared_blocker_is_reported_and_one_cleared_only_on_a_side_branch_is_not(git_repo):
    repo = git_repo()
    repo.commit({"ios/App/App.entitlements": "<plist><dict></dict></plist>\n"}, "ios: app shell", "2026-02-01")
    repo.commit({"docs/release-board.md": RELEASE}, "docs: release board", "2026-02-03")
    repo.commit(
        {"android/app/src/main/play/data-safety.csv": "location,shared\n"},
        "android: data-safety form for location sharing",
        "2026-02-05",
        branch="wip/data-safety",
    )
    repo.commit(
        {"ios/App/App.entitlements": "<plist><dict><key>aps-environment</key></dict></plist>\n"},
        "ios: add the push-notification entitlement so TestFlight accepts the build",
        "2026-02-06",
    )
    found = _lines(repo, "docs/release-board.md", _findings(repo, "RL101"))
    assert any("push-notification entitlement is missing" in line for line in found)
    assert not any("data-safety form" in line for line in found)  # only on an unmerged branch


# --- a symbol beside path:line is code, not a file name ---------------------------------------------------------


STORAGE_V1 = """resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
}

resource "aws_s3_bucket" "assets" {
  bucket = "acme-assets"
}
"""

BUCKETS = """# Storage cut-over

| Stack | Status | Blockers |
|---|---|---|
| `stacks/storage` | 🟡 | Log bucket: the bucket lives at `infra/storage.tf:1` (`aws_s3_bucket.logs`); keep versioning on for the log bucket when moving it |
"""


def test_a_commit_changing_the_named_file_elsewhere_does_not_do_the_rows_work(git_repo):
    repo = git_repo()
    repo.commit({"infra/storage.tf": STORAGE_V1}, "[infra] buckets", "2026-03-01")
    repo.commit({"docs/storage.md": BUCKETS}, "[docs] storage cut-over", "2026-03-02")
    repo.commit(
        {"infra/storage.tf": STORAGE_V1.replace('"acme-assets"', '"acme-assets"\n  versioning { enabled = true }')},
        # it changed the file the cell points at, in another resource than the one the cell names
        "[storage] log bucket versioning kept when moving the assets stack",
        "2026-03-04",
    )
    assert not _lines(repo, "docs/storage.md", _findings(repo, "RL101"))


def test_the_symbol_beside_a_line_reference_is_read_whole():
    rf = parse_record("docs/storage.md", BUCKETS.encode(), Config())
    st = next(s for s in rf.statements if "Log bucket" in s.text)
    assert [(p.path, p.line, p.symbol) for p in st.mentions.paths] == [("infra/storage.tf", 1, "aws_s3_bucket.logs")]


# --- an HCL block label defines the name ------------------------------------------------------------------------


def _ref(symbol: str, line: int) -> PathRef:
    return PathRef(
        path="infra/dns.tf", line=line, end_line=line, symbol=symbol, text=f"infra/dns.tf:{line}", form="colon"
    )


DNS = """data "aws_route53_zone" "main" {
  name = "example.org"
}

resource "aws_route53_record" "www" {
  zone_id = aws_route53_zone.main.zone_id
  name    = "www"
}

output "www_fqdn" {
  value = aws_route53_record.www.fqdn
}
"""


def test_a_quoted_block_label_is_where_the_symbol_is_defined():
    lines = DNS.split("\n")
    moved = locate(lines, _ref("aws_route53_record.www", 1))
    assert (moved.status, moved.line) == ("moved", 5)
    assert locate(lines, _ref("aws_route53_record.www", 5)).status == "on-lines"
    # the block that labels the name, not a line that uses it (`aws_route53_zone.main.zone_id`)
    assert locate(lines, _ref("aws_route53_zone.main", 1)).status == "on-lines"
    assert (locate(lines, _ref("aws_route53_zone.main", 9)).line) == 1


def test_a_moved_terraform_resource_is_reported_where_it_is_now(git_repo):
    repo = git_repo()
    repo.commit({"infra/dns.tf": DNS}, "[dns] records", "2026-04-01")
    repo.commit(
        {"docs/dns.md": "# DNS\n\n- The public record is `infra/dns.tf:5` (`aws_route53_record.www`).\n"},
        "[docs] dns",
        "2026-04-02",
    )
    repo.commit(
        {"infra/dns.tf": 'provider "aws" {\n  region = "eu-west-1"\n}\n\n' + DNS}, "[dns] pin the region", "2026-04-03"
    )
    found = _findings(repo, "RL303")
    assert [(f.path, f.line) for f in found] == [("docs/dns.md", 3)]
    assert "infra/dns.tf:9" in found[0].message


# --- a default given as a choice index or an enum value ---------------------------------------------------------


def test_a_choice_index_or_enum_value_turned_from_off_is_a_flip():
    choice = 'add(Choice("dither", {{"none", "tpdf", "shaped"}}, {}));'
    assert flips._direction(choice.format(0), choice.format(2), "dither") is True
    assert flips._direction(choice.format(2), choice.format(0), "dither") is False
    assert flips._direction('mode = "off"', 'mode = "fast"', "mode") is True
    assert (
        flips._direction(
            "setting('dither', choices=DITHERS, default_index=0)",
            "setting('dither', choices=DITHERS, default_index=1)",
            "dither",
        )
        is True
    )
    # a version or a size that changed from one value to another says nothing of on or off
    assert (
        flips._direction('ParamID { "dither", 1 }, "Dither", 0', 'ParamID { "dither", 2 }, "Dither", 0', "dither")
        is None
    )
    assert flips._direction("retries = 3", "retries = 5", "retries") is None
    # the value of another setting written after it on the same line is that setting's
    assert flips._direction("Opts{Dither: 0, Limiter: 0}", "Opts{Dither: 0, Limiter: 1}", "Dither") is None


MIXER = """# Mixer settings

- Dither is off by default (the `dither` choice starts at none); mastering engineers pick TPDF on export.
- The limiter is opt-in: `limiter` starts disabled so old projects render as before.
"""

PARAMS = """def layout():
    return [
        choice("dither", ["none", "tpdf", "shaped"], {dither}),
        toggle("limiter", {limiter}),
    ]
"""


def test_a_one_word_setting_whose_choice_default_moved_off_none_is_reported(git_repo):
    repo = git_repo()
    repo.commit({"app/params.py": PARAMS.format(dither=0, limiter=False)}, "params", "2026-05-01")
    repo.commit({"docs/mixer.md": MIXER}, "docs: mixer", "2026-05-02")
    repo.commit(
        {"app/params.py": PARAMS.format(dither=1, limiter=False)}, "params: new projects export with TPDF", "2026-05-09"
    )
    found = _lines(repo, "docs/mixer.md", _findings(repo, "RL104"))
    assert any("Dither is off by default" in line for line in found)
    assert not any("limiter" in line for line in found)  # still False


def test_a_one_word_setting_is_one_the_record_sets_as_code_and_calls_off():
    def settings(text: str) -> frozenset[str]:
        return _word_settings(parse_record("docs/a.md", f"# A\n\n{text}\n".encode(), Config()).statements[-1])

    assert settings("- The `limiter` is opt-in.") == {"limiter"}
    assert settings("- Caching is opt-in for `new` projects.") == frozenset()  # a common word, not a setting
    assert settings("- The `limiter` runs after `dither`, which is on.") == frozenset()  # nothing called off


# --- a dated folder's summary.json is its result -----------------------------------------------------------------


def test_a_dated_folder_keeps_its_result_in_its_only_json_or_its_summary(git_repo):
    repo = git_repo()
    repo.commit(
        {
            "results/2026-05-14_ingest-1m/summary.json": json.dumps({"rows_per_s": 51200}),
            "results/2026-05-14_ingest-1m/run1.log": "ok\n",
            "results/2026-05-15_ingest-10m/metrics.json": json.dumps({"rows_per_s": 48800}),
            "results/2026-05-15_ingest-10m/run1.json": json.dumps({"rows_per_s": 47000}),
            "results/2026-05-16_scan/a.json": json.dumps({"rows_per_s": 1}),
            "results/2026-05-16_scan/b.json": json.dumps({"rows_per_s": 2}),
        },
        "bench",
        "2026-05-16",
    )
    config = Config(evidence=replace(Config().evidence, root="results"))
    store = load_evidence(Tree(repo.path), config)
    assert store.get("2026-05-14_ingest-1m").raw == {"rows_per_s": 51200}
    assert store.get("2026-05-15_ingest-10m").raw == {"rows_per_s": 48800}
    assert store.get("2026-05-16_scan").raw is None  # two JSON files, neither named as the result


THROUGHPUT = """# Ingest throughput

## Current numbers

| Series | Rows | ingest MB/s | Run |
|---|---|---|---|
| `ingest-1m` | 1M | 384.0 | 2026-05-02 |
| `ingest-10m` | 10M | 351.5 | 2026-05-02 |
"""


def test_a_row_keyed_by_its_series_is_superseded_by_the_newer_summary(git_repo):
    repo = git_repo()
    summary = "results/2026-05-02_{}/summary.json"
    repo.commit(
        {
            summary.format("ingest-1m"): json.dumps({"series": "ingest-1m", "ingest_mbps": 384.0}),
            summary.format("ingest-10m"): json.dumps({"series": "ingest-10m", "ingest_mbps": 351.5}),
        },
        "bench: first numbers",
        "2026-05-02",
    )
    repo.commit({"notes/ingest.md": THROUGHPUT}, "notes: ingest", "2026-05-03")
    repo.commit(
        {"results/2026-05-09_ingest-1m/summary.json": json.dumps({"series": "ingest-1m", "ingest_mbps": 512.9})},
        "bench: ingest-1m with batched inserts",
        "2026-05-09",
    )
    found = _lines(repo, "notes/ingest.md", _findings(repo, "RL201"))
    assert any("`ingest-1m`" in line for line in found)
    assert not any("`ingest-10m`" in line for line in found)  # never rerun


# --- "we already have" is what a commit builds on --------------------------------------------------------------


def _commit(subject: str, body: str = "") -> Commit:
    sha = f"{abs(hash((subject, body))):040x}"[-40:]  # commits are one commit per sha (and cached by it)
    return Commit(sha, (), "2026-04-01T00:00:00+00:00", 0, "2026-04-01T00:00:00+00:00", 0, subject, body)


def test_what_a_commit_says_it_already_has_is_not_work_it_did():
    cw = commit_work(_commit("cache: warm the CDN edge", "Uses the Redis cluster we already have for the keys."))
    assert terms_of("Redis cluster") <= cw.undone and not terms_of("Redis cluster") & cw.done
    # a condition describes new behaviour: "if we already have" keeps its words as work done
    cw = commit_work(
        _commit("cache: warm the CDN edge", "Create the Redis cluster, or reuse it if we already have one.")
    )
    assert terms_of("Redis cluster") <= cw.done


# --- "The bottleneck is X" and a conclusion drawn from it ------------------------------------------------------


def test_the_bottleneck_said_first_is_a_premise_and_its_conclusion_no_denial():
    assert _states_premise("The bottleneck is the inventory lookup: it takes a lock per item.")
    assert _states_premise("Our main culprit was the JSON encoder.")
    assert not _states_premise("The bottleneck section below lists what we measured.")
    assert not _denies("The bottleneck is the inventory lookup, so caching prices won't help.")
    assert _denies("Caching prices won't help.")
    assert _denies("Caching prices won't help, so we stop there.")


CHECKOUT = """# Checkout latency

Checkout p95 is 920 ms at 300 rps. The bottleneck is the inventory lookup: it holds a row lock per cart item \
while the stock check runs, so caching prices won't help.

Caching prices won't help either way: prices are already served from memory.
"""


def test_a_premise_a_later_commit_denies_is_refuted_and_a_denial_it_agrees_with_is_not(git_repo):
    repo = git_repo()
    repo.commit({"src/checkout.py": "def checkout(): ...\n"}, "checkout", "2026-06-01")
    repo.commit({"docs/checkout.md": CHECKOUT}, "docs: checkout latency", "2026-06-02")
    repo.commit({"src/payments.py": "RETRIES = 1\n"}, "payments: one retry instead of five", "2026-06-09")
    assert _lines(repo, "docs/checkout.md", _findings(repo, "RL103")) == []  # nothing said it was wrong yet
    repo.commit(
        {"docs/trace.txt": "x\n"},
        "trace: p95 breakdown\n\nThe inventory lookup was not the bottleneck: the row lock per cart item is held for "
        "2 ms, and the wait was the payment client's retry loop. Caching prices is not worth it either.",
        "2026-06-16",
    )
    found = _lines(repo, "docs/checkout.md", _findings(repo, "RL103"))
    assert any("The bottleneck is the inventory lookup" in line for line in found)
    assert not any(line.startswith("Caching prices won't help either way") for line in found)


# --- CJK terms are character bigrams; CJK rerun words ------------------------------------------------------------


def test_cjk_runs_give_character_bigrams_without_function_characters():
    assert {"日志", "上传", "重试"} <= terms_of("日志上传加重试")
    assert "的重" not in terms_of("日志的重试") and "日志" in terms_of("日志的重试")
    assert terms_of("订单导出改成异步") & terms_of("订单列表加分页") == {"订单"}
    assert terms_of("add retries to log upload") == terms_of("add retries to log upload 。")  # English unchanged


TODO_ZH = """# 订单服务 待办

## 待办
- [ ] 订单导出改成异步任务，避免网关超时 —— @李雷
- [ ] 订单列表加分页，一次最多返回 100 条 —— @韩梅梅
"""


def test_a_chinese_item_whose_work_a_chinese_commit_reports_is_reported(git_repo):
    repo = git_repo()
    repo.commit({"src/order/export.py": "def export(): ...\n"}, "init: 订单服务", "2026-03-01")
    repo.commit({"docs/todo.md": TODO_ZH}, "docs: 待办", "2026-03-02")
    repo.commit(
        {"src/order/export.py": "async def export(): ...\n"},
        "feat(order): 订单导出改成异步任务\n\n网关不再等导出完成，超时问题消失。",
        "2026-03-06",
    )
    found = _lines(repo, "docs/todo.md", _findings(repo, "RL101"))
    assert any("订单导出改成异步任务" in line for line in found)
    assert not any("订单列表加分页" in line for line in found)  # shares only 订单


TODO_JA = """# 検索チーム TODO

- [ ] キャッシュ導入後に `search-p95` を再計測する
- [ ] `index-build` を再計測する
"""


def test_a_japanese_rerun_that_newer_evidence_records_is_reported(git_repo):
    repo = git_repo()
    ev = "docs/bench-evidence/{}/result.json"
    repo.commit(
        {
            ev.format("20260301-search-p95"): json.dumps({"series": "search-p95", "p95_ms": 81.0}),
            ev.format("20260301-index-build"): json.dumps({"series": "index-build", "wall_s": 412.0}),
        },
        "bench: 初回計測",
        "2026-03-01",
    )
    repo.commit({"docs/todo.md": TODO_JA}, "docs: TODO", "2026-03-02")
    repo.commit(
        {ev.format("20260309-search-p95"): json.dumps({"series": "search-p95", "p95_ms": 44.0})},
        "bench: キャッシュ後の search-p95",
        "2026-03-09",
    )
    found = _lines(repo, "docs/todo.md", _findings(repo, "RL102"))
    assert any("search-p95" in line for line in found)
    assert not any("index-build" in line for line in found)  # no newer run of that series


# --- a commit that changed the handler of a named endpoint -------------------------------------------------------


def test_endpoints_and_the_routes_code_serves():
    assert endpoints("Rate-limit `POST /v1/sessions/` per IP, then GET /v1/me") == ("POST /v1/sessions", "GET /v1/me")
    assert endpoints("see docs/api/sessions.md") == ()
    ktor = ['route("/v1") {', '    post("/sessions") {', "        limiter.check(ip)", "    }", "}"]
    assert ("/v1/sessions", '    post("/sessions") {') in _paths_of(ktor, 3)
    spring = [
        "@RestController",
        "class S {",
        '    @PostMapping("/v1/sessions")',
        "    fun create() {",
        "        x()",
        "    }",
    ]
    assert _paths_of(spring, 5)[0][0] == "/v1/sessions"
    assert _paths_of(["def helper():", "    return 1"], 2) == []


SESSIONS_V1 = """const router = require("express").Router();

router.post("/v1/sessions", async (req, res) => {
  const user = await users.check(req.body);
  res.json(await sessions.open(user));
});

router.get("/v1/sessions", async (req, res) => {
  res.json(await sessions.list(req.user));
});
"""

TODO_SESSIONS = """# Auth TODO

- [ ] Rate-limit `POST /v1/sessions` per IP
- [ ] Paginate `GET /v1/sessions` for admins with many devices
"""


def test_a_commit_changing_the_named_routes_handler_did_its_work_and_not_the_other_routes(git_repo):
    repo = git_repo()
    repo.commit({"src/routes/sessions.js": SESSIONS_V1}, "auth: sessions", "2026-07-01")
    repo.commit({"docs/TODO.md": TODO_SESSIONS}, "docs: auth todo", "2026-07-02")
    repo.commit(
        {
            "src/routes/sessions.js": SESSIONS_V1.replace(
                "  const user = await users.check(req.body);",
                "  await throttle.take(req.ip);\n  const user = await users.check(req.body);",
            )
        },
        "sessions: throttle sign-ins per IP address",
        "2026-07-05",
    )
    found = _lines(repo, "docs/TODO.md", _findings(repo, "RL101"))
    assert any("Rate-limit `POST /v1/sessions`" in line for line in found)
    assert not any("Paginate `GET /v1/sessions`" in line for line in found)  # the same path, another handler
