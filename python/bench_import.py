"""The import time of kernelcount (docs/python.md): the best of N fresh interpreters, each
importing the package alone, against an interpreter that imports nothing.

    python python/bench_import.py [N]      # prints milliseconds; exit 1 above 50 ms
"""
import subprocess
import sys

CODE = "import time; t = time.perf_counter(); {}; print((time.perf_counter() - t) * 1000)"


def best(stmt, n):
    return min(float(subprocess.check_output([sys.executable, "-c", CODE.format(stmt)])) for _ in range(n))


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    package = best("import kernelcount", n)
    with_core = best("import kernelcount; kernelcount.Report", n)
    print(f"import kernelcount: {package:.2f} ms (best of {n}); with the core loaded: {with_core:.2f} ms")
    sys.exit(0 if package < 50 else 1)
