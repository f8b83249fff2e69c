"""Sections that list work still to do, in the words teams title them beyond the configured list.

`directives.sections` in the config names the lists of work a team keeps ("Punch-list", "Next steps", "TODO"). Records
are also kept as weekly reports, RFCs and status notes, in many languages, whose plan sections are titled otherwise:
"下周计划" (next week's plan) of a 周报, "次の作業" / "今後の予定" of a Japanese report, "Próximos pasos", "Nächste
Woche", an RFC's "Future work" or "Follow-up work". An item under such a heading asks for that work, as one under
"Next steps" does. An RFC's "Unresolved questions", a report's "本周完成" (done this week) or "进行中" (under way) are
no such list: questions are not requests, and work under way is tracked, not asked for.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Latin-script titles, as whole words anywhere in the title ("Limitations and future work", "3. Próximos pasos").
_LATIN = re.compile(
    r"(?<![\w])(?:"
    # English
    r"future\s+work|follow[- ]?up\s+work|further\s+work|next\s+week(?:'s)?(?:\s+(?:plans?|tasks?|goals?|work))?|"
    r"plans?\s+for\s+(?:the\s+)?next\s+(?:week|sprint|iteration|cycle|month|quarter|release)|"
    r"next\s+(?:sprint|iteration|cycle|month|quarter)(?:'s)?\s+(?:plans?|tasks?|goals?|work)|"
    r"upcoming\s+(?:work|tasks?)|planned\s+(?:work|tasks?|changes)|"
    # Spanish, Portuguese
    r"pr[oó]xim[oa]s\s+pas(?:os|sos)|siguientes\s+pasos|tareas\s+pendientes|"
    r"trabajo\s+futuro|trabalho\s+futuro|trabajos?\s+futuros|trabalhos\s+futuros|por\s+hacer|a\s+fazer|"
    r"plan(?:o)?\s+para\s+(?:la|a)\s+pr[oó]xima\s+semana|pr[oó]xima\s+semana|"
    # French, Italian
    r"prochaines?\s+[ée]tapes?|(?:reste\s+)?[àa]\s+faire|travaux\s+futurs|travail\s+futur|semaine\s+prochaine|"
    r"prossimi\s+passi|da\s+fare|lavori\s+futuri|sviluppi\s+futuri|prossima\s+settimana|"
    # German
    r"n[äa]chste\s+(?:schritte|woche|aufgaben)|offene\s+(?:punkte|aufgaben)|zuk[üu]nftige\s+arbeiten?|"
    r"geplante\s+(?:arbeiten|aufgaben)|"
    # Dutch, Polish
    r"volgende\s+(?:stappen|week)|(?:nog\s+)?te\s+doen|actiepunten|toekomstig\s+werk|"
    r"(?:nast[eę]pne|kolejne)\s+kroki|do\s+zrobienia|dalsze\s+prace|przysz[lł]e\s+prace|"
    r"plan\s+na\s+(?:nast[eę]pny|kolejny|przysz[lł]y)\s+tydzie[nń]"
    r")(?![\w])",
    re.I,
)
# Chinese, Japanese, Korean titles: no spaces, so no word edges; anywhere in the title ("三、下周计划").
_CJK = re.compile(
    # Chinese (simplified and traditional): next week's plan, next steps, follow-up work, future work, to-dos
    r"下(?:周|週|个?星期|个?月|個?月|阶段|階段|个?迭代|個?迭代|个?版本|個?版本|个?季度|個?季度)(?:工作)?(?:计划|計劃|計畫|安排|目标|目標|任务|任務)"
    r"|下一步|后续(?:计划|工作|事项|跟进|任务)|後續(?:計劃|計畫|工作|事項|跟進|任務)|未来工作|未來工作|"
    r"待办|待辦|遗留问题|遺留問題|"
    # Japanese: next work, next steps, plans from now on, next week's plan, work left
    r"次の(?:作業|ステップ|対応|予定|タスク)|次回(?:の)?(?:作業|予定|対応)|今後の(?:予定|作業|課題|対応|タスク|方針)|"
    r"来週の(?:予定|作業|タスク|対応)|残作業|残タスク|対応予定|やること|"
    # Korean: next steps, next week's plan, future plans, to-dos, work left
    r"다음\s*(?:단계|작업|주\s*계획|할\s*일)|향후\s*(?:계획|작업|과제)|차주\s*계획|할\s*일|남은\s*작업"
)


@lru_cache(maxsize=4096)
def plan_title(title: str) -> bool:
    """Does a heading title name a list of work still to do (beyond the configured sections)?"""
    return _LATIN.search(title) is not None or _CJK.search(title) is not None


def in_plan_section(sections: tuple[str, ...]) -> bool:
    """Is a statement under such a heading? The file's own title counts only when it is the only heading (a file
    titled "Future work of the X project" is not, all through, a list of work)."""
    inner = sections[1:] if len(sections) > 1 else sections
    return any(plan_title(s) for s in inner)
