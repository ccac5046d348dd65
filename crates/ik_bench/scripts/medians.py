"""Medians of the ECS benchmark's result rows (from medians.sh) as the README's table, then the
figures the issue's bars ask for. Rows whose "other load" exceeds 5 % are dropped."""
import collections
import statistics
import sys

ORDER = [
    "floor (touch each bone once)", "floor, per-character gather", "full, plane probe, all threads",
    "full, plane probe, 1 thread", "full, rapier, all threads", "legs: bevy_ik, all threads",
    "legs: bevy_ik, 1 thread", "legs: bevy_mod_inverse_kinematics",
]
FULL, FULL_1, PEER = ORDER[2], ORDER[3], ORDER[7]
LEGS, LEGS_1, FLOOR = ORDER[5], ORDER[6], ORDER[0]
COUNTS = [1, 100, 1000, 10000]


def spaced(x):
    return f"{x:,.0f}".replace(",", " ")


def read(path):
    rows = collections.defaultdict(list)
    for line in open(path):
        if not line.startswith("| "):
            continue
        label, n, window, _, _, _, whole, max_error, _, load = [c.strip() for c in line.strip().strip("|").split("|")]
        load = 0.0 if load in ("–", "") else float(load.rstrip(" %"))
        if load <= 5:
            rows[(label, int(n))].append((float(window), float(whole), float(max_error)))
    return {
        key: (statistics.median(v[0] for v in vals), statistics.median(v[1] for v in vals), max(v[2] for v in vals), len(vals))
        for key, vals in rows.items()
    }


def main():
    med = read(sys.argv[1])
    per = lambda label, n: med[(label, n)][0] * 1e6 / n  # ns per character
    print("| scenario | N | IK window, ms/frame | ns/character | ns/chain | × floor | speed-up over the peer (per chain) | whole frame, ms | max error, m | runs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in COUNTS:
        for label in ORDER:
            if (label, n) not in med:
                continue
            window, whole, error, runs = med[(label, n)]
            bold = n >= 100 and label in (FULL, LEGS)
            b = (lambda s: f"**{s}**" if bold and s else s)
            chain = spaced(per(label, n) / 2) if label.startswith("legs") else ""
            floor = f"{per(label, n) / per(FLOOR, n):.1f}" if label.startswith("full") or "gather" in label else ""
            speedup = f"{per(PEER, n) / per(label, n):.2f}×" if label in (LEGS, LEGS_1) else ""
            err = "–" if label.startswith("floor") else f"{error:.1e}"
            print(f"| {b(label)} | {spaced(n)} | {window:.3f} | {b(spaced(per(label, n))) if label == FULL else spaced(per(label, n))} | "
                  f"{b(chain)} | {b(floor)} | {b(speedup)} | {whole:.2f} | {err} | {runs} |")
    print()
    full = [per(FULL, n) for n in COUNTS[1:]]
    mean = sum(full) / len(full)
    print(f"flatness, full character N = 100…10 000: {[round(v) for v in full]} ns, "
          f"{(min(full) / mean - 1) * 100:+.0f} % / {(max(full) / mean - 1) * 100:+.0f} % around the mean")
    for n in COUNTS[1:]:
        print(f"N = {n}: legs {per(PEER, n) / per(LEGS, n):.2f}× the peer (1 thread {per(PEER, n) / per(LEGS_1, n):.2f}×); "
              f"full {per(FULL, n) / per(FLOOR, n):.0f}× the floor; 1 ÷ 2 threads: full {per(FULL_1, n) / per(FULL, n):.2f}, "
              f"legs {per(LEGS_1, n) / per(LEGS, n):.2f}")


main()
