"""Capability catalogs: what each app can do, as data (the world's `venuskit/tasks/capabilities/*.toml`, the
desktop's `venuskit/tasks/desktop/capabilities/*.toml`; venuskit.tasks.synth.surface says which fields each adds).

A capability is one function of one app, cold-started from the app's help page and code:

- `kind`: `act` (changes state), `read` (finds a value another step uses, or the final answer), `answer`
  (ends the task with an answer read off the screen), `view` (a function a contract cannot check: it changes
  nothing and yields no value);
- `params`: each drawn from a domain: `pool:NAME` (a fixed list in the catalog), `state:NAME` (a query over the
  seeded world), or inline `values`; a parameter that `accepts` a value type can take a value an earlier step
  read (data flow), and `derive` computes one parameter from another (an end time from a start);
- `setup`: the rows it puts on top of the background world (setup ops of `venuskit.tasks.setup`); on the desktop
  instead `files` (the home folder's files it needs), `config` (app settings) and `window` (the app window it works
  in: app, args, and a title to find it by);
- `pre`: checks that must hold in the seeded state; `targets`: what the goal names, which must exist exactly once;
- `effect`: keypoints (checks of `venuskit.tasks.checks`) that prove it was done; `produces`: the values a read
  yields, each with the phrase a goal uses to point at it;
- `oracle`: the fragment of a scripted solution (steps of `venuskit.tasks.oracle`, or of
  `venuskit.tasks.desktop.oracle`), starting at the app's home (on the desktop: in its window, in front).

Functions the help pages say an app lacks are listed too (`[[unsupported]]`), with the reason. A malformed
catalog raises `CatalogError` naming the file, the capability, the field and the reason.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from venuskit.tasks.loader import oracle_step
from venuskit.tasks.synth.surface import Surface, get_surface

KINDS = ("act", "read", "answer", "view")
LOCALES = ("en", "zh")
APP_HOME = Surface.app_home
CHECK_APP = Surface.check_app
PLACEHOLDER = re.compile(r"\{(\w+)(?:\.(\w+))?\}")
_SQL = re.compile(r"^\s*SELECT\b[^;]*$", re.IGNORECASE)


class CatalogError(ValueError):
    """A capability file that cannot be used; the message names the file, capability, field and reason."""


@dataclass(frozen=True)
class Param:
    name: str
    domain: str = ""  # "pool:NAME" | "state:NAME" | "values" (inline) | "" (derived)
    values: tuple[Any, ...] = ()  # inline domain
    unsupported: dict[str, str] = field(default_factory=dict)  # value the help page rules out -> why
    accepts: tuple[str, ...] = ()  # value types an earlier read may bind ("*": any)
    say: dict[str, str] = field(default_factory=dict)  # how the goal says a literal value, per locale
    derive: str = ""  # another parameter (or `param.field`) this one is computed from
    minutes: int = 0  # derive: that time (HH:MM) plus these minutes
    add: str = ""  # derive: that amount plus this amount ("9.90")
    also: str = ""  # a second domain, `state:NAME` over rows the seeded world already has (no setup row then)
    also_p: float = 0.0  # how often the value comes from `also`


@dataclass(frozen=True)
class Produce:
    type: str  # value type: iban, amount, date, time, place, code, name, email, file, payee, text
    value: str  # template over the capability's parameters
    ref: dict[str, str]  # per locale: the noun phrase a goal uses instead of the value


@dataclass(frozen=True)
class Cond:
    check: str
    args: dict[str, Any]
    negate: bool = False
    unless: str = ""  # skipped when this parameter was bound by data flow or drawn from the seeded world


@dataclass(frozen=True)
class Effect:
    desc: str
    check: str
    args: dict[str, Any]
    progress: bool = False


@dataclass(frozen=True)
class Target:
    kind: str  # a referent kind of venuskit.tasks.synth.refs
    text: str
    unless: str = ""


@dataclass(frozen=True)
class Capability:
    id: str
    app: str
    kind: str
    help: str  # the help-page section it was cold-started from
    goal: dict[str, str]  # per locale: an imperative clause
    source: str
    templates: tuple[str, ...] = ()  # hand-written templates that exercise the same function
    surfaces: tuple[str, ...] = ("browser", "mobile")
    params: tuple[Param, ...] = ()
    setup: tuple[dict[str, Any], ...] = ()  # ops; an op with "unless" is skipped when that param was bound
    files: tuple[dict[str, Any], ...] = ()  # desktop: the home folder's files it needs (venuskit.tasks.desktop.spec)
    config: tuple[dict[str, Any], ...] = ()  # desktop: app settings it starts from
    window: dict[str, Any] = field(default_factory=dict)  # desktop: the app window it works in (app, args, title)
    pre: tuple[Cond, ...] = ()
    targets: tuple[Target, ...] = ()
    effect: tuple[Effect, ...] = ()
    forbid: tuple[Effect, ...] = ()
    consequential: tuple[str, ...] = ()
    oracle: tuple[tuple[str, ...], ...] = ()
    produces: tuple[Produce, ...] = ()
    implied: tuple[str, ...] = ()  # parameters the goal need not spell out (the agent looks them up in the world)
    touches: tuple[str, ...] = ()  # other apps it uses without changing them (a receipt picked from Drive)
    last: bool = False  # must be the task's final step (it ends the task, or changes the UI language)
    supported: bool = True
    reason: str = ""  # unsupported: why the app cannot do it
    surface: str = "browser"  # venuskit.tasks.synth.surface: browser (the world) or computer (the desktop)

    @property
    def home(self) -> str:
        return get_surface(self.surface).app_home[self.app]

    @property
    def apps(self) -> tuple[str, ...]:
        """Its own app, the apps its effect checks read (a check `drive.file` means Drive) and `touches`."""
        check_app = get_surface(self.surface).check_app
        read = [check_app.get(e.check.split(".")[0]) for e in self.effect]
        return tuple(dict.fromkeys([self.app, *(a for a in read if a), *self.touches]))

    @property
    def composable(self) -> bool:
        """Whether a task can be built on it (the coverage goal counts these)."""
        return self.supported and self.kind != "view"

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)


@dataclass(frozen=True)
class Catalog:
    caps: dict[str, Capability]
    pools: dict[str, dict[str, tuple[Any, ...]]]  # name -> locale -> items
    queries: dict[str, str]  # state domain name -> SELECT over the seeded world
    surface: str = "browser"

    def by_app(self, app: str | None = None) -> list[Capability]:
        return [c for c in self.caps.values() if app is None or c.app == app]

    def composable(self) -> list[Capability]:
        return [c for c in self.caps.values() if c.composable]


# ---- loading and validation ----------------------------------------------------------------------


class _Where:
    def __init__(self, path: Path | str, cap: str = "?") -> None:
        self.path, self.cap = str(path), cap

    def fail(self, fld: str, reason: str) -> CatalogError:
        return CatalogError(f"{self.path}: capability {self.cap!r}: field '{fld}': {reason}")


@cache
def capabilities_dir(surface: str = "browser") -> Path:
    return get_surface(surface).capabilities_dir()


def load_catalog(directory: Path | str | None = None, surface: str = "browser") -> Catalog:
    """Every capability in every *.toml under `directory` (default: the surface's bundled catalogs), validated."""
    sf = get_surface(surface)
    root = Path(directory) if directory is not None else capabilities_dir(surface)
    if not root.is_dir():
        raise CatalogError(f"{root}: no such capability folder.")
    pools: dict[str, dict[str, tuple[Any, ...]]] = {}
    queries: dict[str, str] = {}
    raws: list[tuple[Path, dict[str, Any]]] = []
    for path in sorted(root.glob("*.toml")):
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise CatalogError(f"{path}: not valid TOML: {e}") from e
        for name, by_locale in doc.get("pools", {}).items():
            if name in pools:
                raise CatalogError(f"{path}: pool {name!r} is defined twice (pool names are shared by all files)")
            pools[name] = _pool(path, name, by_locale)
        for name, q in doc.get("domains", {}).items():
            if name in queries:
                raise CatalogError(f"{path}: domain {name!r} is defined twice (domain names are shared by all files)")
            if not isinstance(q, dict) or not _SQL.match(str(q.get("sql", ""))):
                raise CatalogError(f"{path}: domain {name!r}: needs sql = one SELECT statement")
            queries[name] = q["sql"]
        raws.append((path, doc))
    caps: dict[str, Capability] = {}
    for path, doc in raws:
        app = doc.get("app")
        entries = [(r, True) for r in doc.get("capability", [])] + [(r, False) for r in doc.get("unsupported", [])]
        if entries and app not in sf.kind.apps:
            raise CatalogError(f"{path}: 'app' must be one of {', '.join(sf.kind.apps)}; got {app!r}")
        for raw, supported in entries:
            cap = _capability(raw, app, supported, _Where(path, str(raw.get("id", "?"))), pools, queries, sf)
            if cap.id in caps:
                raise CatalogError(f"{path}: capability {cap.id!r}: already defined in {caps[cap.id].source}")
            caps[cap.id] = cap
    if not caps:
        raise CatalogError(f"{root}: no [[capability]] tables in any *.toml file.")
    return Catalog(caps, pools, queries, surface)


@cache
def bundled_catalog(surface: str = "browser") -> Catalog:
    return load_catalog(surface=surface)


def _pool(path: Path, name: str, by_locale: Any) -> dict[str, tuple[Any, ...]]:
    if not isinstance(by_locale, dict) or not set(by_locale) <= set(LOCALES) or "en" not in by_locale:
        raise CatalogError(f"{path}: pool {name!r}: must be a table with an 'en' list (and optionally 'zh')")
    out = {}
    for loc, items in by_locale.items():
        if not isinstance(items, list) or not items:
            raise CatalogError(f"{path}: pool {name!r}.{loc}: must be a non-empty list")
        out[loc] = tuple(items)
    return out


def _strs(raw: Any, w: _Where, fld: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise w.fail(fld, "must be a list of strings")
    return tuple(raw)


def _locales(raw: dict[str, Any], key: str, w: _Where, required: bool = True) -> dict[str, str]:
    out = {loc: raw[k] for loc, k in (("en", key), ("zh", f"{key}_zh")) if isinstance(raw.get(k), str)}
    if required and set(out) != set(LOCALES):
        raise w.fail(key, f"needs '{key}' and '{key}_zh' strings")
    return out


def _capability(raw: dict[str, Any], app: str, supported: bool, w: _Where, pools, queries,
                sf: Surface) -> Capability:  # fmt: skip
    cid = raw.get("id")
    if not isinstance(cid, str) or not re.fullmatch(rf"{app}\.[a-z0-9_]+", cid):
        raise w.fail("id", f"must be '{app}.<name>' in lowercase letters, digits and '_'")
    if not supported:
        if not isinstance(raw.get("reason"), str) or not raw["reason"].strip():
            raise w.fail("reason", "an unsupported function needs the reason the app cannot do it")
        cap = Capability(cid, app, "act", str(raw.get("help", "")), _locales(raw, "goal", w), w.path,
                         templates=_strs(raw.get("templates", []), w, "templates"), supported=False,
                         reason=raw["reason"], surface=sf.name)  # fmt: skip
        sf.check_links(cap, w)
        return cap
    kind = raw.get("kind")
    if kind not in KINDS:
        raise w.fail("kind", f"must be one of {', '.join(KINDS)}; got {kind!r}")
    params = tuple(_param(n, v, w, pools, queries) for n, v in raw.get("params", {}).items())
    cap = Capability(
        id=cid, app=app, kind=kind, help=str(raw.get("help", "")), goal=_locales(raw, "goal", w), source=w.path,
        templates=_strs(raw.get("templates", []), w, "templates"),
        surfaces=_strs(raw.get("surfaces", list(sf.task_surfaces)), w, "surfaces"), params=params,
        pre=tuple(_cond(c, w, f"pre[{i}]", sf) for i, c in enumerate(raw.get("pre", []))),
        targets=tuple(_target(t, w, f"targets[{i}]", sf) for i, t in enumerate(raw.get("targets", []))),
        effect=tuple(_effect(e, w, f"effect[{i}]", sf) for i, e in enumerate(raw.get("effect", []))),
        forbid=tuple(_effect(e, w, f"forbid[{i}]", sf) for i, e in enumerate(raw.get("forbid", []))),
        consequential=_consequential(raw, w, sf),
        oracle=tuple(_oracle(s, w, f"oracle[{i}]", sf) for i, s in enumerate(raw.get("oracle", []))),
        produces=tuple(_produce(p, w, f"produces[{i}]") for i, p in enumerate(raw.get("produces", []))),
        implied=_strs(raw.get("implied", []), w, "implied"), touches=_strs(raw.get("touches", []), w, "touches"),
        last=bool(raw.get("last", kind == "answer")), surface=sf.name, **sf.parse_extra(raw, w),
    )  # fmt: skip
    _check_capability(cap, w, sf)
    return cap


def _consequential(raw: dict[str, Any], w: _Where, sf: Surface) -> tuple[str, ...]:
    out = _strs(raw.get("consequential", []), w, "consequential")
    for c in out:
        if c not in sf.kind.consequential:
            known = ", ".join(sf.kind.consequential)
            raise w.fail("consequential", f"{c!r} is not a consequential action; known: {known}")
    return out


def _param(name: str, raw: Any, w: _Where, pools, queries) -> Param:
    if isinstance(raw, str):
        raw = {"domain": raw}
    if not isinstance(raw, dict):
        raise w.fail(f"params.{name}", "must be a domain string or a table")
    p = Param(name, domain=str(raw.get("domain", "values" if "values" in raw else "")),
              values=tuple(raw.get("values", ())), unsupported=dict(raw.get("unsupported", {})),
              accepts=tuple(raw.get("accepts", ())), say=_locales(raw, "say", w, required=False),
              derive=str(raw.get("derive", "")), minutes=int(raw.get("minutes", 0)),
              add=str(raw.get("add", "")), also=str(raw.get("also", "")),
              also_p=float(raw.get("also_p", 0.25 if raw.get("also") else 0.0)))  # fmt: skip
    kind, _, ref = p.domain.partition(":")
    if p.say and set(p.say) != set(LOCALES):
        raise w.fail(f"params.{name}.say", "needs both 'say' and 'say_zh'")
    if p.derive:
        return p
    if p.also and p.also.partition(":")[2] not in queries:
        raise w.fail(f"params.{name}.also", f"must be state:NAME of a defined domain; got {p.also!r}")
    if kind == "pool" and ref not in pools:
        raise w.fail(f"params.{name}", f"no pool {ref!r}; pools: {', '.join(sorted(pools))}")
    if kind == "state" and ref not in queries:
        raise w.fail(f"params.{name}", f"no state domain {ref!r}; domains: {', '.join(sorted(queries))}")
    if kind == "values" and not p.values:
        raise w.fail(f"params.{name}", "an inline domain needs a non-empty 'values' list")
    if kind not in ("pool", "state", "values"):
        raise w.fail(f"params.{name}", "domain must be pool:NAME, state:NAME, values = [...] or derive = PARAM")
    return p


def _args(raw: Any, check: str, w: _Where, where: str, sf: Surface) -> dict[str, Any]:
    args = dict(raw or {})
    bad = sf.kind.checks.problem(check, args)
    if bad is not None:
        raise w.fail(f"{where}.{bad[0]}", bad[1])
    return args


def _cond(raw: Any, w: _Where, where: str, sf: Surface) -> Cond:
    if not isinstance(raw, dict):
        raise w.fail(where, "must be a table with check and args")
    return Cond(raw.get("check", ""), _args(raw.get("args"), raw.get("check", ""), w, where, sf),
                bool(raw.get("negate", False)), str(raw.get("unless", "")))  # fmt: skip


def _effect(raw: Any, w: _Where, where: str, sf: Surface) -> Effect:
    if not isinstance(raw, dict) or not isinstance(raw.get("desc"), str) or not raw["desc"].strip():
        raise w.fail(where, "a keypoint needs desc (short, visually checkable), check and args")
    return Effect(raw["desc"], raw.get("check", ""), _args(raw.get("args"), raw.get("check", ""), w, where, sf),
                  bool(raw.get("progress", False)))  # fmt: skip


def _target(raw: Any, w: _Where, where: str, sf: Surface) -> Target:
    if not isinstance(raw, dict) or raw.get("kind") not in sf.target_kinds:
        raise w.fail(where, f"needs kind (one of {', '.join(sf.target_kinds)}) and text")
    return Target(raw["kind"], str(raw.get("text", "")), str(raw.get("unless", "")))


def _oracle(raw: Any, w: _Where, where: str, sf: Surface) -> tuple[Any, ...]:
    ops = {o: n for o, n in sf.kind.oracle_ops.items() if o != "finish"}
    if not isinstance(raw, list) or not raw or raw[0] not in ops:
        raise w.fail(where, f"must be [op, args...] with op one of {', '.join(ops)} (the composer adds the finish)")
    return oracle_step(raw, w, where, ops)  # type: ignore[arg-type]  # this _Where fails with a CatalogError


def _produce(raw: Any, w: _Where, where: str) -> Produce:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str) or not isinstance(raw.get("value"), str):
        raise w.fail(where, "needs type, value and ref / ref_zh")
    return Produce(raw["type"], raw["value"], _locales(raw, "ref", w))


def _check_capability(cap: Capability, w: _Where, sf: Surface) -> None:
    """Cross-field rules: placeholders name parameters, kinds have what they need."""
    names = {p.name for p in cap.params}
    for p in cap.params:
        if p.derive and p.derive.split(".")[0] not in names:
            raise w.fail(f"params.{p.name}.derive", f"names no parameter of this capability: {p.derive!r}")
        if p.derive and bool(p.minutes) == bool(p.add):
            raise w.fail(f"params.{p.name}", "a derived parameter needs one of minutes (a time) or add (an amount)")
    for name in cap.implied:
        if name not in names:
            raise w.fail("implied", f"names no parameter: {name!r}")
    sf.check_links(cap, w)
    texts = [*cap.goal.values(), repr((cap.setup, cap.files, cap.config, cap.window)),
             repr([(c.args, c.unless) for c in cap.pre]),
             repr([(e.desc, e.args) for e in cap.effect + cap.forbid]), repr(cap.oracle),
             repr([(t.text, t.unless) for t in cap.targets]), *(s for p in cap.params for s in p.say.values()),
             *(s for pr in cap.produces for s in (pr.value, *pr.ref.values()))]  # fmt: skip
    for text in texts:
        for name, _ in PLACEHOLDER.findall(text):
            if name not in names:
                raise w.fail("params", f"placeholder {{{name}}} names no parameter; parameters: {sorted(names)}")
    if any(s not in sf.task_surfaces for s in cap.surfaces) or not cap.surfaces:
        raise w.fail("surfaces", f"must be a non-empty list of {', '.join(sf.task_surfaces)}")
    if cap.kind in ("act", "answer") and not cap.oracle:
        raise w.fail("oracle", f"an {cap.kind} capability needs an oracle fragment")
    if cap.kind == "act" and not any(not e.progress for e in cap.effect):
        raise w.fail("effect", "an act capability needs at least one effect keypoint that is not progress")
    if cap.kind == "read" and not cap.produces:
        raise w.fail("produces", "a read capability must produce at least one value")
    if cap.kind == "answer" and not cap.effect:
        raise w.fail("effect", "an answer capability needs the keypoint that checks the answer")
    if cap.kind == "view" and (cap.effect or cap.produces):
        raise w.fail("kind", "a view capability has no effect and produces nothing; make it act or read")
