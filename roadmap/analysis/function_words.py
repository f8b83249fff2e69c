"""Function words of the languages engineering records mix with English (German, French, Spanish, Portuguese,
Dutch, Italian): articles, prepositions, conjunctions, auxiliaries. Like English "the" or "for", they say nothing
about which work a text names: "Dark Mode für den Onboarding-Flow" and "Dark Mode für den Settings-Screen"
share "für den", not work. Words that are also English terms of the trade are left out ("die" of a chip, "op",
"os", "sin", "aux", "est", "ce", "su", "du", "des", "lo", "di").
"""

from __future__ import annotations

FUNCTION_WORDS = frozenset(
    """
der den dem das ein eine einen einem einer eines und oder aber für fuer mit auf bei beim zum zur vom von im ins
aus nach über ueber unter vor nicht noch auch schon nur wenn dann weil dass daß ist sind wird werden wurde wurden
kann können koennen soll sollen muss muß müssen muessen haben wir sie wie bis durch gegen ohne sonst vorher jetzt
damit dabei bevor sowie wieder immer sich uns bitte
le la les un une et ou pour avec sans dans sur au qui que cette ces leur nous vous ils elle pas être été
el los las del al para por con en es son una uno sus como más mas pero cuando sobre entre hasta desde está
da dos das em na nos nas um uma com não nao ao pelo pela são
het een voor niet ook maar naar uit wordt worden bij zijn deze dit
il gli della delle dei degli nel nella che non sono questo anche
""".split()
)
