"""gpu_stack for Python: the compiled model's questions, answered by the same runtime as `gpu-stack`.

    import gpu_stack
    print(gpu_stack.resolve("econ.cost.per_token", preset="default"))
    cols = gpu_stack.sweep("econ.cost.per_token", vary={"econ.power.price_kwh_offpeak": "0.02..0.4:200"}, preset="default")

Numbers given to the module follow the command line's rule: a bare number is in the variable's display
unit, a string may carry its own ("0.36 USD/(kW*h)"). Numbers coming back are in SI base units, with the
unit named beside them. Errors raise gpu_stack.Error with the CLI's message and exit code (see
docs/python.md).
"""
from __future__ import annotations

import json as _json
import os as _os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _core
from ._core import Error

__all__ = ["Error", "Model", "Resolution", "Step", "Sweep", "model", "variables", "describe", "presets", "resolve",
           "sweep", "uncertainty", "sensitivity", "plan", "simulate", "validate", "default_image_path"]

_BUILD_DIR = _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))


def default_image_path() -> str:
    """$GSTACK_IMAGE when set, else model.gsimg of the build this package sits in (build/python/gpu_stack)."""
    return _core.default_image_path(_BUILD_DIR)


Names = Union[None, str, Sequence[str]]
Values = Union[None, Mapping[str, Any], Sequence[str]]


def _names(x: Names) -> list:
    if x is None:
        return []
    return [x] if isinstance(x, str) else list(x)


def _pairs(x: Values) -> list:
    """{"name": value} or ["name=value"] as the CLI's NAME=VALUE texts (floats exactly, by repr)."""
    if x is None:
        return []
    if isinstance(x, Mapping):
        return [f"{k}={v!r}" if isinstance(v, float) else f"{k}={v}" for k, v in x.items()]
    return [x] if isinstance(x, str) else list(x)


@dataclass(frozen=True)
class Step:
    """One computed variable of a resolution's trace: value in SI base units, the relation that gave it."""
    variable: str
    value: Optional[float]
    unit: str
    display: str
    relation: str
    role: str
    location: str
    reason: str = ""


@dataclass
class Resolution:
    """A target's value under a scenario, with its trace, missing inputs and checks.

    `value` is in SI base units (`si_unit`); `display` is the CLI's human form in the display `unit`.
    `complete` is False when inputs are missing: `value` is then None, `missing` names them (one dict
    per input, key "variable") and `formula` holds the answer as a formula in them. `json` is the whole document `gpu-stack resolve --json` prints.
    """
    target: str
    value: Optional[float]
    unit: str
    si_unit: str
    display: str
    complete: bool
    trace: list = field(repr=False)
    missing: list
    interval: Optional[dict] = None
    json: dict = field(default_factory=dict, repr=False)

    @property
    def formula(self) -> Optional[str]:
        """The answer as a formula in the missing inputs (SI base units), when inputs are missing."""
        return self.json.get("formula")

    def __str__(self) -> str:
        text = f"{self.target} = {self.display}"
        if self.missing:
            text += " (missing: " + ", ".join(m.get("variable", "?") for m in self.missing) + ")"
        return text

    def __float__(self) -> float:
        if self.value is None:
            raise _error(f"{self.target} has no numeric value: the scenario leaves inputs missing")
        return float(self.value)


def _step(s: dict) -> Step:
    rel = s.get("relation") or {}
    return Step(variable=s["variable"], value=s.get("value") if isinstance(s.get("value"), (int, float)) else None,
                unit=s.get("unit", ""), display=s.get("display", ""), relation=rel.get("name", ""),
                role=rel.get("role", ""), location=rel.get("location", ""), reason=s.get("reason", rel.get("reason", "")))


class Sweep(dict):
    """Columns of a sweep: name -> NumPy array in SI base units (inputs first, then targets).

    Extra facts are attributes: units (name -> SI unit), points, engine, threads, seconds (evaluation
    only), compile_ms, nonfinite, inputs_not_read. `pandas.DataFrame(sweep)` gives a table.
    """

    def __init__(self, d: dict):
        super().__init__(d["columns"])
        for key in ("units", "points", "engine", "threads", "seconds", "compile_ms", "nonfinite", "inputs_not_read"):
            setattr(self, key, d[key])


class Model:
    """A loaded registry image (default: default_image_path()) and a presets folder (default:
    $GSTACK_PRESETS, else the source tree's presets/)."""

    def __init__(self, image: Optional[str] = None, presets: Optional[str] = None):
        self._core = _core.Model(image or default_image_path(), presets or "")

    @property
    def image_path(self) -> str:
        return self._core.image_path

    @property
    def presets_dir(self) -> str:
        return self._core.presets_dir

    def variables(self, prefix: str = "") -> list:
        """Names of the model's variables, sorted, optionally only those starting with `prefix`."""
        return self._core.variables(prefix)

    def presets(self) -> list:
        """Names of the presets in the presets folder."""
        return self._core.presets()

    def describe(self, name: str) -> dict:
        """What the model declares about a variable: kind, units, description, system, source location,
        defining relations and references."""
        return self._core.describe(name)

    def resolve(self, target: str, preset: Names = None, assign: Values = None, variants: Values = None,
                check_overrides: bool = False) -> Resolution:
        """`gpu-stack resolve TARGET`: the value, its trace and what is missing."""
        doc = _json.loads(self._core.resolve(target, _names(preset), _pairs(assign), _pairs(variants), check_overrides))
        return Resolution(target=doc["target"], value=doc.get("value") if doc.get("complete") else None,
                          unit=doc.get("unit", ""), si_unit=doc.get("si_unit", ""),
                          display=doc.get("display") or f"{doc.get('formula', '')} {doc.get('unit', '')}".strip(),
                          complete=bool(doc.get("complete")), trace=[_step(s) for s in doc.get("steps", [])],
                          missing=doc.get("missing", []), interval=doc.get("interval"), json=doc)

    def sweep(self, targets: Names, vary: Mapping[str, Any], preset: Names = None, assign: Values = None,
              variants: Values = None, zip: bool = False, engine: str = "jit", threads: int = 0) -> Sweep:
        """`gpu-stack sweep`: targets over the grid of `vary` (or, with zip, its lists element by element).

        Each `vary` value is a CLI SPEC string ("0.02..0.4:200", "16,32,64", "1..100:log:50 kW"), a
        sequence or NumPy array of numbers in the variable's display unit, or (numbers, "unit")."""
        items = []
        for name, spec in vary.items():
            if isinstance(spec, str):
                items.append((name, spec))
            elif isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str):
                items.append((name, spec[0], spec[1]))
            else:
                items.append((name, spec, ""))
        return Sweep(self._core.sweep(_names(targets), items, zip, engine, _threads(threads), _names(preset),
                                      _pairs(assign), _pairs(variants)))

    def uncertainty(self, target: str, preset: Names = None, samples: int = 100000, seed: int = 1, threads: int = 0,
                    assign: Values = None, variants: Values = None) -> dict:
        """`gpu-stack uncertainty`: Monte Carlo over the preset's [uncertainty] inputs. The dict holds the
        CLI's statistics (SI base units) and `values`, every sample as a NumPy array."""
        return self._core.uncertainty(target, _count(samples), seed, _threads(threads), _names(preset),
                                      _pairs(assign), _pairs(variants))

    def sensitivity(self, target: str, preset: Names = None, samples: int = 10000, seed: int = 1, threads: int = 0,
                    assign: Values = None, variants: Values = None) -> dict:
        """`gpu-stack sensitivity`: Sobol first- and total-order indices and elasticities, largest first."""
        return self._core.sensitivity(target, _count(samples), seed, _threads(threads), _names(preset),
                                      _pairs(assign), _pairs(variants))

    def plan(self, preset: Names = None, workload: Optional[str] = None, fix: Values = None,
             objective: str = "tokens_per_sec", top: int = 10, threads: int = 0, knobs: Optional[str] = None,
             assign: Values = None, variants: Values = None) -> dict:
        """`gpu-stack plan --json`: ranked execution strategies; `ranked` is empty when none is feasible."""
        return _json.loads(self._core.plan(_names(preset), workload or "", _pairs(fix), objective, top, _threads(threads),
                                           knobs or "", _pairs(assign), _pairs(variants)))

    def simulate(self, scenario: str, preset: Names = None, seed: Optional[int] = None, replicas: int = 1,
                 policy: Optional[str] = None, threads: int = 0, max_gpu_days: float = 1e8,
                 max_events: int = 100_000_000) -> dict:
        """`gpu-stack simulate --json`: the discrete-event datacenter; with `preset`, the simulator's
        model variables come from the model under it."""
        return _json.loads(self._core.simulate(scenario, _names(preset), seed, replicas, policy, _threads(threads),
                                               max_gpu_days, max_events))

    def validate(self, runs: str) -> dict:
        """`gpu-stack validate --runs FILE --json`: predicted against reported for every published run."""
        return _json.loads(self._core.validate(runs))


def _error(message: str, code: int = 2) -> Error:
    """An Error raised on the Python side, shaped like the ones the runtime raises."""
    e = Error(message)
    e.code, e.message = code, message
    return e


def _threads(n: int) -> int:
    if not isinstance(n, int) or n < 0:
        raise _error(f"threads must be a whole number, 0 for all cores (got {n!r})")
    return n


def _count(n: int) -> int:
    if not isinstance(n, int) or n < 1:
        raise _error(f"samples must be a whole number of at least 1 (got {n!r})")
    return n


_default: Optional[Model] = None


def model() -> Model:
    """The Model every module-level function uses, loaded on first use from default_image_path()."""
    global _default
    if _default is None:
        _default = Model()
    return _default


def variables(prefix: str = "") -> list:
    return model().variables(prefix)


def describe(name: str) -> dict:
    return model().describe(name)


def presets() -> list:
    return model().presets()


def resolve(target: str, **kw) -> Resolution:
    return model().resolve(target, **kw)


def sweep(targets: Names, vary: Mapping[str, Any], **kw) -> Sweep:
    return model().sweep(targets, vary, **kw)


def uncertainty(target: str, **kw) -> dict:
    return model().uncertainty(target, **kw)


def sensitivity(target: str, **kw) -> dict:
    return model().sensitivity(target, **kw)


def plan(**kw) -> dict:
    return model().plan(**kw)


def simulate(scenario: str, **kw) -> dict:
    return model().simulate(scenario, **kw)


def validate(runs: str) -> dict:
    return model().validate(runs)


for _f in (variables, describe, presets, resolve, sweep, uncertainty, sensitivity, plan, simulate, validate):
    _f.__doc__ = getattr(Model, _f.__name__).__doc__
