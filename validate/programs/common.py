"""Shared harness of the real-program validation suite (validate/programs/README.md).

Every program parses the same options (`add_common_args`), builds a
random-initialised bf16 model (nothing is downloaded), and runs its steps
through a `Harness`:

* each step starts with `torch.cuda.nvtx.mark("flashsim.step")` (an
  instantaneous NVTX marker; skipped on cpu) and a host timestamp
  (`time.perf_counter_ns`);
* each phase's first step is preceded by `torch.cuda.nvtx.mark("flashsim.repeat")`
  (just before that step's timestamp and `flashsim.step` mark), so a capture
  can tell the phases (warm-up, repeats) apart;
* a step's time runs from its start to the next step's start; the last step
  of a phase (the warm-up, or one repeat) ends at `close_phase()`, taken right
  after that step returned;
* after the last timed step of the run, `torch.cuda.nvtx.mark("flashsim.end")`.

Phases: one warm-up phase of `--warmup` steps (untimed, but marked), then
`--repeats` phases of `--steps` timed steps. Whatever a program does between
phases (e.g. a new prompt's prefill) falls, in a capture, inside the previous
phase's last marked step; with `--repeats 1` (the captured run) that is the
last warm-up step, which the simulator side skips (`"warmup"` in the JSON).

The JSON result is written atomically (temporary file, then os.replace).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from typing import Callable, Optional

import torch


def add_common_args(ap: argparse.ArgumentParser, steps: int = 8, cpu_ok: bool = True) -> argparse.ArgumentParser:
    ap.add_argument("--warmup", type=int, default=2, help="untimed (but marked) steps before the repeats (default 2)")
    ap.add_argument("--steps", type=int, default=steps, help=f"timed steps per repeat (default {steps})")
    ap.add_argument("--repeats", type=int, default=5, help="repeats of --steps timed steps (default 5)")
    ap.add_argument("--out", default=None, help="write the result JSON here (atomically)")
    ap.add_argument("--device", default="cuda",
                    help="execution device: cuda (default)" + (", or cpu for a dry check" if cpu_ok else ""))
    ap.add_argument("--seed", type=int, default=0)
    return ap


def check_args(args: argparse.Namespace, cpu_ok: bool = True) -> torch.device:
    if args.warmup < 0 or args.steps < 1 or args.repeats < 1:
        raise SystemExit("need --warmup >= 0, --steps >= 1, --repeats >= 1")
    dev = torch.device(args.device)
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise SystemExit("no CUDA device (use --device cpu for a dry check)")
        if dev.index is None:
            dev = torch.device("cuda", torch.cuda.current_device())
    elif dev.type == "cpu":
        if not cpu_ok:
            raise SystemExit("this program needs a CUDA device")
    else:
        raise SystemExit(f"unsupported --device {args.device}")
    torch.manual_seed(args.seed)
    return dev


def sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


class Harness:
    """Marks and times steps; writes the result JSON."""

    def __init__(self, name: str, description: str, args: argparse.Namespace, dev: torch.device):
        self.name = name
        self.description = description
        self.args = args
        self.dev = dev
        self.cuda = dev.type == "cuda"
        self.phases: list[list[int]] = []      # per phase: step durations (ns)
        self._starts: list[int] = []           # current phase's step starts
        self._in_phase = False
        self._phase_kind: list[str] = []
        self.n_phases = (1 if args.warmup > 0 else 0) + args.repeats
        self.t_begin = time.perf_counter_ns()
        self.t_end: Optional[int] = None

    # -- phases and steps ------------------------------------------------
    def phase_steps(self) -> list[int]:
        """Number of steps of each phase, in order (warm-up first if any)."""
        return ([self.args.warmup] if self.args.warmup > 0 else []) + [self.args.steps] * self.args.repeats

    def open_phase(self) -> None:
        assert not self._in_phase, "phase already open"
        self._in_phase = True
        self._starts = []

    def mark_step(self) -> None:
        """Start a step: host timestamp, then the NVTX marker (the phase's first step: after
        a `flashsim.repeat` marker, emitted before the timestamp)."""
        assert self._in_phase, "mark_step outside a phase"
        if self.cuda and not self._starts:
            torch.cuda.nvtx.mark("flashsim.repeat")
        self._starts.append(time.perf_counter_ns())
        if self.cuda:
            torch.cuda.nvtx.mark("flashsim.step")

    def close_phase(self) -> None:
        """End the current phase: its last step ends now. After the last phase, emit flashsim.end."""
        t = time.perf_counter_ns()
        assert self._in_phase, "close_phase outside a phase"
        self._in_phase = False
        starts = self._starts + [t]
        self.phases.append([b - a for a, b in zip(starts, starts[1:])])
        if len(self.phases) == self.n_phases:
            if self.cuda:
                torch.cuda.nvtx.mark("flashsim.end")
            self.t_end = t

    def run(self, step: Callable[[], None], prepare: Optional[Callable[[], None]] = None) -> None:
        """Run all phases: per phase, prepare() (untimed, unmarked), then its steps back to back."""
        for n in self.phase_steps():
            if prepare is not None:
                prepare()
            self.open_phase()
            for _ in range(n):
                self.mark_step()
                step()
            self.close_phase()

    # -- result ----------------------------------------------------------
    def result(self, config: dict, extra: Optional[dict] = None) -> dict:
        a = self.args
        if len(self.phases) != self.n_phases:
            raise RuntimeError(f"{self.name}: ran {len(self.phases)} phases, expected {self.n_phases}")
        timed = self.phases[1:] if a.warmup > 0 else self.phases
        warm = self.phases[0] if a.warmup > 0 else []
        for i, ph in enumerate(timed):
            if len(ph) != a.steps:
                raise RuntimeError(f"{self.name}: repeat {i} ran {len(ph)} steps, expected {a.steps}")
        medians = [statistics.median(ph) for ph in timed]
        res = {
            "program": self.name,
            "description": self.description,
            "config": config,
            "step_ns": timed,
            "warmup_step_ns": warm,
            "repeat_median_ns": medians,
            "median_step_ns": statistics.median(medians),
            "min_step_ns": min(medians),
            "max_step_ns": max(medians),
            "repeats": a.repeats,
            "steps": a.steps,
            "warmup": a.warmup,
            "markers": {"step": "flashsim.step", "end": "flashsim.end", "repeat": "flashsim.repeat",
                        "steps_marked": a.warmup + a.repeats * a.steps,
                        "repeats_marked": self.n_phases},
            "device": str(self.dev),
            "device_name": torch.cuda.get_device_name(self.dev) if self.cuda else platform.processor() or "cpu",
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "python": platform.python_version(),
            "argv": sys.argv,
            "wall_s_steps": (self.t_end - self.t_begin) / 1e9 if self.t_end else None,
        }
        for mod in ("transformers", "accelerate", "diffusers"):
            m = sys.modules.get(mod)
            if m is not None:
                res[mod] = getattr(m, "__version__", None)
        if self.cuda:
            res["max_memory_allocated"] = torch.cuda.max_memory_allocated(self.dev)
        if extra:
            res.update(extra)
        return res

    def finish(self, config: dict, extra: Optional[dict] = None) -> dict:
        res = self.result(config, extra)
        out = self.args.out
        if out:
            write_json_atomic(out, res)
        print(f"{self.name}: median step {res['median_step_ns'] / 1e6:.3f} ms "
              f"(repeat medians {res['min_step_ns'] / 1e6:.3f}..{res['max_step_ns'] / 1e6:.3f} ms, "
              f"{self.args.repeats} x {self.args.steps} steps, warm-up {self.args.warmup})", flush=True)
        return res


def write_json_atomic(path: str, obj: dict) -> None:
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp-", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# -- models ---------------------------------------------------------------

def tensor_bytes(tensors) -> int:
    return int(sum(t.numel() * t.element_size() for t in tensors))


def random_fill_(model: torch.nn.Module, seed: int = 0, dtype: torch.dtype = torch.bfloat16,
                 std: float = 0.02, device="cpu") -> torch.nn.Module:
    """Give every parameter of `model` (built under accelerate.init_empty_weights, so its
    parameters are on the meta device and its buffers are real) a tensor of `dtype` on `device`
    (default cpu; a GPU fill creates the weights there without host-to-device copies):
    norms get ones, biases zeros, the rest N(0, std) values tiled from a 16 Mi-element pool
    (much faster than the models' own initialisation on CPU; values only need to be finite
    and not degenerate). Tied parameters stay tied (filled once)."""
    from accelerate.utils import set_module_tensor_to_device

    g = torch.Generator().manual_seed(seed)
    dev = torch.device(device)
    pool = (torch.randn(1 << 24, generator=g) * std).to(dtype).to(dev)
    seen: dict[int, torch.Tensor] = {}
    for name, p in list(model.named_parameters(remove_duplicate=False)):
        if id(p) in seen:
            continue
        leaf = name.rsplit(".", 1)[-1]
        if "norm" in name.lower() and leaf == "weight":
            v = torch.ones(p.shape, dtype=dtype, device=dev)
        elif leaf == "bias":
            v = torch.zeros(p.shape, dtype=dtype, device=dev)
        else:
            n = p.numel()
            v = torch.empty(n, dtype=dtype, device=dev)
            off = 0
            start = int(torch.randint(0, pool.numel() // 2, (1,), generator=g))
            while off < n:
                k = min(n - off, pool.numel() - start)
                v[off:off + k] = pool[start:start + k]
                off += k
                start = 0
            v = v.view(p.shape)
        set_module_tensor_to_device(model, name, dev, value=v, dtype=dtype)
        seen[id(p)] = v
    # parameters that were tied share one Parameter object; re-tie in case the setter replaced one
    if hasattr(model, "tie_weights"):
        try:
            model.tie_weights()
        except Exception:
            pass
    return model


def build_empty(cls, config):
    """Construct `cls(config)` with parameters on the meta device (buffers real, default dtype
    bf16 so parameter dtypes come out bf16), to be filled by random_fill_."""
    import accelerate

    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with accelerate.init_empty_weights(include_buffers=False):
            model = cls(config)
    finally:
        torch.set_default_dtype(old)
    return model
