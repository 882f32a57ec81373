"""How fast and how lean the attn_lib core is, as ratios measured in this one run.

1. ``attention`` in float32 at heads=8, n=m=1000, d_k=d_v=64, against the two bare matrix products it cannot avoid
   (Q K^T and weights V) on the same arrays; target <= 2.5x. A naive line (divide by ``np.sqrt(d_k)``, exp, divide
   by the row sums) is printed beside it for comparison.
2. ``chunked_attention``'s peak memory (tracemalloc) as a fraction of ``attention``'s at n=m=4096; target <= 10%.
3. ``import attn_lib`` in a fresh interpreter (``python -X importtime``): the time of attn_lib's own modules as a
   fraction of a bare ``import numpy``; target <= 25%, with neither matplotlib nor ipywidgets loaded (the core is
   numpy-only; plotting and widgets load when first used).

Run: ``python benchmarks/attention_speed_memory.py`` (about half a minute on 2 cores). No figure here is asserted
by a test: the script prints what it measured and whether each target is met.
"""

from __future__ import annotations

import os
import subprocess
import sys
import timeit
import tracemalloc
from pathlib import Path

import numpy as np

# Run from a clone without `pip install -e .`: the repository's top folder holds the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import attn_lib  # noqa: E402
from attn_lib import attention, chunked_attention  # noqa: E402

REPEATS = 11


def verdict(met: bool) -> str:
    return "target met" if met else "target missed"


def best_times(*fns, repeats=REPEATS) -> list:
    """Minimum time of one call of each function (seconds), the calls interleaved so that each repeat sees the
    same load on the machine; one warm-up call each first."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, t in zip(fns, times):
            t.extend(timeit.repeat(fn, number=1, repeat=1))
    return [min(t) for t in times]


def blas_report() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed (BLAS threads not reported)"
    pools = [f"{p.get('internal_api')} {p.get('version')} {p.get('architecture')}, {p.get('num_threads')} threads"
             for p in threadpool_info() if p.get("user_api") == "blas"]
    return "; ".join(pools) or "no BLAS pool found"


def speed(heads=8, n=1000, m=1000, d_k=64, d_v=64) -> None:
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((heads, n, d_k), dtype=np.float32)
    K = rng.standard_normal((heads, m, d_k), dtype=np.float32)
    V = rng.standard_normal((heads, m, d_v), dtype=np.float32)
    K_T = np.swapaxes(K, -1, -2)  # (heads, d_k, m)
    weights = np.full((heads, n, m), 1.0 / m, dtype=np.float32)

    def two_products():
        scores = Q @ K_T  # (heads, n, d_k) x (heads, d_k, m) -> (heads, n, m)
        output = weights @ V  # (heads, n, m) x (heads, m, d_v) -> (heads, n, d_v)
        return scores, output

    def naive():
        scores = Q @ K_T / np.sqrt(d_k)  # (heads, n, m); np.sqrt(64) is a float64 scalar
        exp = np.exp(scores)  # no max subtracted
        return (exp / exp.sum(axis=-1, keepdims=True)) @ V  # (heads, n, m) x (heads, m, d_v) -> (heads, n, d_v)

    def library():
        return attention(Q, K, V)

    out_dtype = library().dtype
    t_bare, t_lib, t_naive = best_times(two_products, library, naive)
    shape = f"heads={heads}, n={n}, m={m}, d_k={d_k}, d_v={d_v}, float32"
    print(f"[speed] {shape}; BLAS: {blas_report()}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}")
    print(f"  two bare matrix products: {t_bare * 1e3:.1f} ms (min of {REPEATS})")
    print(f"  attention / bare products = {t_lib / t_bare:.2f}x (output dtype {out_dtype}; target <= 2.5x): "
          f"{verdict(t_lib / t_bare <= 2.5)}")
    print(f"  naive line / bare products = {t_naive / t_bare:.2f}x (for comparison; output dtype {naive().dtype})")


def peak_bytes(fn) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def memory(n=4096, m=4096, d_k=64, d_v=64, chunk_size=256) -> None:
    rng = np.random.default_rng(1)
    Q, K, V = rng.standard_normal((n, d_k)), rng.standard_normal((m, d_k)), rng.standard_normal((m, d_v))
    full = peak_bytes(lambda: attention(Q, K, V))
    chunked = peak_bytes(lambda: chunked_attention(Q, K, V, chunk_size=chunk_size))
    same = np.abs(chunked_attention(Q, K, V, chunk_size=chunk_size) - attention(Q, K, V)).max()
    print(f"[memory] n={n}, m={m}, d_k={d_k}, d_v={d_v}, float64, chunk_size={chunk_size} (tracemalloc peaks)")
    print(f"  attention peak {full / 2**20:.1f} MiB (the scores alone: {n * m * 8 / 2**20:.1f} MiB); "
          f"chunked_attention peak {chunked / 2**20:.1f} MiB; largest difference of outputs {same:.1e}")
    print(f"  chunked / full = {chunked / full:.1%} (target <= 10%): {verdict(chunked / full <= 0.10)}")


def import_time(repeats=REPEATS) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}

    def cumulative_us(module: str) -> dict:
        """python -X importtime in a fresh interpreter: cumulative microseconds of attn_lib and of numpy."""
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True,
                             text=True, check=True, env=env).stderr
        rows = [line.split("|") for line in err.splitlines() if line.startswith("import time:") and "|" in line]
        return {row[2].strip(): int(row[1]) for row in rows if row[1].strip().isdigit()}

    runs = [cumulative_us("attn_lib") for _ in range(repeats)]
    total = min(r["attn_lib"] for r in runs) / 1e6  # attn_lib with everything it imports, numpy included
    own = min(r["attn_lib"] - r["numpy"] for r in runs) / 1e6  # attn_lib's own modules
    numpy_alone = min(cumulative_us("numpy")["numpy"] for _ in range(repeats)) / 1e6
    leaked = subprocess.run(
        [sys.executable, "-c", "import sys, attn_lib; print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))"],
        capture_output=True, text=True, check=True, env=env,
    ).stdout.strip()
    print(f"[import] fresh interpreter, python -X importtime, min of {repeats}: import attn_lib {total * 1e3:.1f} ms "
          f"in all, of which numpy {total * 1e3 - own * 1e3:.1f} ms; bare import numpy {numpy_alone * 1e3:.1f} ms; "
          f"matplotlib/ipywidgets loaded: {leaked}")
    met = own <= 0.25 * numpy_alone and leaked == "[]"
    print(f"  attn_lib's own modules = {own * 1e3:.1f} ms = {own / numpy_alone:.0%} of numpy's import "
          f"(target <= 25%, and neither matplotlib nor ipywidgets): {verdict(met)}")


def speed_with_one_blas_thread() -> None:
    """The speed line again in a fresh interpreter whose BLAS may use one thread only (steadier on a busy machine)."""
    one = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, __file__, "--speed-only"], capture_output=True, text=True, check=True,
                            env={**os.environ, **one})
    print(result.stdout.rstrip().replace("[speed]", "[speed, one BLAS thread]", 1))


def main() -> None:
    if "--speed-only" in sys.argv:
        speed()
        return
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"attn_lib {attn_lib.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}; "
          f"{os.cpu_count()} cores, load average {load} (ratios are only meaningful on an idle machine)")
    speed()
    speed_with_one_blas_thread()
    memory()
    import_time()


if __name__ == "__main__":
    main()
