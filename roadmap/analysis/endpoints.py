"""Did a commit change the code of an HTTP endpoint a directive names?

"Paginar `GET /api/pedidos` con cursor" names a route: a commit that changed lines inside that route's handler
worked on it, whatever its message calls it ("listado por páginas con ?despues=<id>"). A handler is found by
indentation: the blocks enclosing a changed line (and the annotations or decorators right above their headers,
`@GetMapping("/orders")`) name the route's path, whole or in pieces (`route("/api") { get("/pedidos") {`). A
router the file declares with a prefix (FastAPI's `APIRouter(prefix="/orders")`, Flask's `url_prefix=`) serves
its handlers under it: `@router.get("")` there serves `/orders`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from roadmap.history.git import read_object, show_patch

_ENDPOINT = re.compile(r"(?<![\w/-])(GET|POST|PUT|PATCH|DELETE)\s+`?(/[A-Za-z0-9_.{}:<>/-]*[A-Za-z0-9_}>])")
_METHOD = re.compile(r"(?<![A-Za-z])(get|post|put|patch|delete)(?:mapping)?(?![a-z])", re.I)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_QUOTED_PATH = re.compile(r"[\"'`](/[^\"'`\s]*)[\"'`]")
# A route decorator's path, the empty one too: `@router.get("")` serves its router's prefix itself.
_DECORATOR_PATH = re.compile(r"^\s*@[\w.]+\(\s*[\"'`](/[^\"'`\s]*|)[\"'`]")
_PREFIX = re.compile(r"\b(?:url_)?prefix\s*=\s*[\"'](/[^\"'\s]*)[\"']")
MAX_FILE_BYTES = 1 << 20
MAX_FILES = 50  # a commit changing more files than this is no change to one handler


def endpoints(text: str) -> tuple[str, ...]:
    """The routes `text` names, with their method: "Paginar `GET /api/pedidos`" -> ("GET /api/pedidos",)."""
    if "/" not in text:
        return ()
    return tuple(dict.fromkeys(f"{m.group(1)} {_clean(m.group(2))}" for m in _ENDPOINT.finditer(text)))


@lru_cache(maxsize=256)
def changes_endpoint(root: str, sha: str, endpoint: str) -> bool:
    """Did commit `sha` add or change a line inside the handler of `endpoint` ("GET /api/pedidos")? A handler
    whose header (or annotation) names another method only (`post(`, `@PutMapping`) is another endpoint's."""
    method, _, route = endpoint.partition(" ")
    for path, lines in _changed_lines(root, sha):
        if path.endswith((".md", ".markdown", ".rst", ".txt")):
            continue  # a record or a note naming the route is no change to its code
        got = read_object(root, f"{sha}:{path}")
        if got is None or got[0] != "blob" or len(got[1]) > MAX_FILE_BYTES:
            continue
        text = got[1].decode("utf-8", "replace").split("\n")
        prefix = router_prefix(text)
        for n in lines:
            if 1 <= n <= len(text) and any(
                _names_route(p, route) and _method_agrees(h, method) for p, h in _paths_of(text, n, prefix)
            ):
                return True
    return False


def _changed_lines(root: str, sha: str) -> list[tuple[str, list[int]]]:
    """(path, the new-side line numbers the commit added or changed) per file of its zero-context patch."""
    out: list[tuple[str, list[int]]] = []
    path = ""
    for raw in show_patch(root, sha).decode("utf-8", "replace").split("\n"):
        if raw.startswith("+++ "):
            path = raw[6:] if raw.startswith("+++ b/") else ""
            if path:
                out.append((path, []))
            if len(out) > MAX_FILES:
                return []
        elif raw.startswith("@@") and path and out:
            m = _HUNK.match(raw)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or 1)
                out[-1][1].extend(range(start, start + max(count, 1)))  # a deletion: the line after it
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def router_prefix(lines: list[str]) -> str:
    """The path prefix of the file's router, when it declares one router with one (else "")."""
    found = {m.group(1) for line in lines if "prefix" in line for m in _PREFIX.finditer(line)}
    return _clean(found.pop()) if len(found) == 1 else ""


def _paths_of(lines: list[str], n: int, prefix: str = "") -> list[tuple[str, str]]:
    """(route path, the text of the header that gave its last piece) the code at line `n` may serve: the quoted
    paths of the headers of the blocks enclosing it (and of their annotations), outermost first, joined, under the
    file's router `prefix` when a route decorator gave one; and that joined with a path line `n` names itself (a
    handler written on one line, `get("/pedidos") { ... }`)."""
    parts: list[tuple[str, str]] = []
    level = _indent(lines[n - 1]) if lines[n - 1].strip() else 1 << 30
    for k in range(n - 1, 0, -1):
        line = lines[k - 1]
        if not line.strip() or _indent(line) >= level:
            continue
        level = _indent(line)
        header = line
        found = _QUOTED_PATH.search(line)
        j = k - 1
        routed = False
        while j >= 1 and _indent(lines[j - 1]) == level and lines[j - 1].lstrip().startswith("@"):
            header = lines[j - 1] + " " + header  # `@GetMapping("/orders")` above `List<Order> list() {`
            decorated = _DECORATOR_PATH.match(lines[j - 1])
            routed = routed or decorated is not None
            found = found or _QUOTED_PATH.search(lines[j - 1]) or decorated
            j -= 1
        if found:
            parts.append((found.group(1), header))
        if level == 0:
            if prefix and routed:
                parts.append((prefix, ""))
            break
    parts.reverse()
    outer = "".join(p for p, _ in parts)
    out = [(_clean(outer), parts[-1][1])] if parts else []
    own = _QUOTED_PATH.search(lines[n - 1])
    if own:
        out.append((_clean(outer + own.group(1)), lines[n - 1]))
    return out


def _clean(path: str) -> str:
    return re.sub(r"/{2,}", "/", path).rstrip("/") or "/"


def _names_route(served: str, route: str) -> bool:
    """The path the code serves is the route, or its tail (a router mounted under a prefix elsewhere)."""
    return any(ch.isalpha() for ch in served) and (served == route or route.endswith(served))


def _method_agrees(header: str, method: str) -> bool:
    """A header that names HTTP methods names this one (`get("/x")`, `@GetMapping`, `methods=["GET"]`); one that
    names none may serve any."""
    named = {m.lower() for m in _METHOD.findall(header)}
    return not named or method.lower() in named
