"""Figures a research group writes: a decimal comma (`1,42`), a composite SI unit (`W/(m·K)`), the unit only in a
column's header (`κ [W/(m·K)]`), the quantity named by its symbol (`κ = 1,37 W/(m·K)`), in markdown evidence.
Found by the blind scenario de-forschung-messprotokoll (2026-12-06). Controls: an English thousands separator, an
enumeration, a version in prose, a struck figure, another sample's series, a figure equal after rounding."""

from __future__ import annotations

import json

from linted import codes_on
from roadmap.analysis.figures_compare import decimals
from roadmap.records.figures import decimal_comma, find_figures, header_unit


def _read(text: str, header: str | None = None, comma: bool = False) -> list[tuple[float, str | None]]:
    return [(f.value, f.unit) for f in find_figures(text, header, comma)]


def test_a_composite_si_unit_is_a_unit():
    assert _read("κ = 1,37 W/(m·K)") == [(1.37, "W/(m·K)")]
    assert _read("g = 9,81 m/s^2") == [(9.81, "m/s²")]  # an exponent, as ^2 or a superscript
    assert _read("c_p = 0,71 J/(kg*K)") == [(0.71, "J/(kg·K)")]  # one spelling of every product sign
    assert _read("ρ = 7,9 g/cm³") == [(7.9, "g/cm³")]
    # controls: a lone symbol is no unit ("300 K"), nor key/value or N/A
    assert _read("Probe B bei 300 K") == [] and _read("8 K/V heads") == [] and _read("3 N/A") == []
    assert _read("3 × 5 Schüsse") == []  # a product, not a ratio of 3


def test_a_header_unit_reaches_the_cells_of_its_column():
    assert header_unit("κ [W/(m·K)]") == "W/(m·K)" and header_unit("ρ (kg/m³)") == "kg/m³"
    assert header_unit("κ (W/(m·K))") == "W/(m·K)" and header_unit("Throughput in tok/s") == "tok/s"
    assert _read("1,42", "κ [W/(m·K)]") == [(1.42, "W/(m·K)")]
    assert _read("1,42", "Quelle") == []  # control: a column without a unit reads no decimal comma


def test_an_english_thousands_separator_stays_one():
    assert _read("p99 1,420 ms") == [(1420.0, "ms")]
    assert _read("1,420", "p99 latency (ms)") == [(1420.0, "ms")]
    assert decimals("1,420 ms") == 0 and decimals("1,42 W/(m·K)") == 2  # rounding as written
    # control: one or two digits after the comma are decimals, before a unit
    assert _read("p99 1,42 ms") == [(1.42, "ms")]


def test_an_enumeration_or_a_version_is_no_figure():
    assert _read("1,2,3", "Latenz (ms)") == [] and _read("Schritte 1,2,3 ms") == []
    assert _read("Firmware 1,42 aufgespielt", comma=True) == []  # a version in prose, no unit
    assert _read("Recall 0,95", comma=True) == [(0.95, None)]  # control: a metric named, in a decimal-comma file
    # lines a path's list names, and lists of ranges, in a "Line(s)" column (a plural, not seconds)
    assert header_unit("Line(s)") is None and header_unit("Wall time (s)") == "s"
    assert _read("  ,60,76", "Line(s)") == [] and _read("22-27,37-45", "Wall time (s)") == []
    assert _read("2-3,5 ms") == [(3.5, "ms")]  # control: a range's end before a unit


def test_a_symbol_names_the_quantity_but_a_difference_sign_does_not():
    from roadmap.analysis.figure_context import metric_before

    def before(text: str, figure: str) -> set[str]:
        return set(metric_before(text, text.index(figure)).terms)

    assert before("Probe B: κ = 1,37 W/(m·K)", "1,37") == {"κ"} and before("c_p = 0,71 J/(g·K)", "0,71") == {"c_p"}
    assert before("honest Δ ≈0.77 ms/step", "0.77") == {"honest"}  # Δ says a difference of what comes before
    assert before("128 / 24.591 s = 5.205 t/s", "5.205") == set()  # `s` is the unit of 24.591, not a symbol


DE = "Die Probe hat sich gelöst und wir messen nach. Dicke 1,02 mm, κ = 1,42 W/(m·K), Wert 0,88 ist nicht gut.\n"


def test_a_file_writes_decimal_commas_by_its_language_and_its_numbers():
    assert decimal_comma(DE)
    assert not decimal_comma("The probe came loose and we measure it again. 1,02 mm, then 1,42 W/(m·K) and 0,88.\n")
    assert not decimal_comma("Die Probe hat sich gelöst und wir messen nach, nicht vor 2026.\n")  # no such numbers
    assert not decimal_comma(DE + "Die Werte 1.5, 2.25, 3.75 und 4.5 sind mit Punkt geschrieben.\n")


REC = "protokoll/messprotokoll.md"


def _protokoll(git_repo, rows: str, newer: dict[str, str]):
    repo = git_repo()
    repo.commit(
        {
            "roadmap.yaml": "records:\n  - protokoll/**/*.md\n",
            "results/2026-02-14-probe-B-300K/auswertung.md": "# Probe B, 300 K\n\n- κ = 1,42 W/(m·K)\n",
            "results/2026-02-14-probe-C-77K/auswertung.md": "# Probe C, 77 K\n\n- κ = 0,88 W/(m·K)\n",
        },
        "Messungen Probe B und C",
        "2026-02-14",
    )
    repo.commit(
        {
            REC: "# Messprotokoll\n\nDie Werte sind unter `results/` abgelegt und werden nicht mehr geändert.\n\n"
            "## Aktueller Stand\n\n| Probe | T | κ [W/(m·K)] | Quelle |\n|---|---|---|---|\n" + rows
        },
        "Messprotokoll angelegt",
        "2026-02-15",
    )
    repo.commit(newer, "Nachmessung", "2026-03-03")
    return repo


B_ROW = "| B | 300 K | {} | `results/2026-02-14-probe-B-300K/` |\n"
C_ROW = "| C | 77 K | 0,88 | `results/2026-02-14-probe-C-77K/` |\n"
B_NEWER = {"results/2026-03-03-probe-B-300K/auswertung.md": "# Probe B, 300 K\n\n- κ = 1,37 W/(m·K) (1,36 / 1,38)\n"}


def test_a_cell_under_a_unit_header_is_superseded_by_markdown_evidence(git_repo):
    repo = _protokoll(git_repo, B_ROW.format("1,42") + C_ROW, B_NEWER)
    assert "RL201" in codes_on(repo, REC, "| B | 300 K |")
    assert "RL201" not in codes_on(repo, REC, "| C | 77 K |")  # control: no newer run of sample C


def test_a_struck_figure_is_not_current(git_repo):
    repo = _protokoll(git_repo, B_ROW.format("~~1,42~~") + C_ROW, B_NEWER)
    assert "RL201" not in codes_on(repo, REC, "| B | 300 K |")


def test_another_samples_run_does_not_supersede(git_repo):
    newer = {"results/2026-03-03-probe-C-77K/auswertung.md": "# Probe C, 77 K\n\n- κ = 0,91 W/(m·K)\n"}
    repo = _protokoll(git_repo, B_ROW.format("1,42") + C_ROW, newer)
    assert "RL201" not in codes_on(repo, REC, "| B | 300 K |")
    assert "RL201" in codes_on(repo, REC, "| C | 77 K |")  # control: sample C's own newer run


def test_a_figure_equal_after_rounding_is_not_superseded(git_repo):
    repo = _protokoll(git_repo, B_ROW.format("1,4") + C_ROW, B_NEWER)
    assert "RL201" not in codes_on(repo, REC, "| B | 300 K |")  # 1,37 is 1,4 to one decimal


def test_another_quantity_in_the_same_run_does_not_supersede(git_repo):
    newer = {"results/2026-03-03-probe-B-300K/auswertung.md": "# Probe B, 300 K\n\n- λ = 1,37 W/(m·K)\n"}
    repo = _protokoll(git_repo, B_ROW.format("1,42") + C_ROW, newer)
    assert "RL201" not in codes_on(repo, REC, "| B | 300 K |")  # κ is not λ


ENGLISH = "PERF.md"


def _english(git_repo, newer_ms: float, name: str):
    repo = git_repo(name)
    repo.commit(
        {
            ENGLISH: "# Perf\n\n| Series | p99 latency (ms) | Evidence |\n|---|---|---|\n"
            "| kv-get-4k | 1,420 | bench/out/2026-05-04-kv-get-4k.json |\n",
            "roadmap.yaml": 'records: ["PERF.md"]\n',
            "bench/out/2026-05-04-kv-get-4k.json": json.dumps({"p99_latency_ms": 1420.0}),
        },
        "perf: kv-get numbers",
        "2026-05-04",
    )
    repo.commit(
        {"bench/out/2026-05-19-kv-get-4k.json": json.dumps({"p99_latency_ms": newer_ms})}, "bench: rerun", "2026-05-19"
    )
    return repo


def test_an_english_thousands_separator_in_a_unit_column_is_compared_as_thousands(git_repo):
    assert "RL201" not in codes_on(_english(git_repo, 1420.3, "same"), ENGLISH, "| kv-get-4k |")
    # control: a newer p99 that differs supersedes it (were it read as 1.42 ms, both would)
    assert "RL201" in codes_on(_english(git_repo, 1388.0, "newer"), ENGLISH, "| kv-get-4k |")
