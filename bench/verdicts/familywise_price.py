#!/usr/bin/env python3
"""The price of family-wise confidence in rounds (docs/statistics.md, "Family-wise confidence").

For K checks at a family-wise level c, each check's confidence sequence runs at
1 - (1 - c) / K (stats/familywise.h, the union bound). A check reading the median per-round
ratio resolves first when every round agrees (a unanimous series); this prints that first
round for 1, 10 and 100 checks, from the same beta-binomial mixture martingale as
stats/sequential.cc (a = b = 1/2, p = 1/2):
    log M_n = log B(a + n, b) - log B(a, b) + n log 2 >= log(1 / alpha_check).
Its self-check: 7 rounds at 95% and 10 at 99% for one check, as stats/sequential.h states.
Usage: python3 bench/verdicts/familywise_price.py [FAMILY_CONFIDENCE]
"""
import math
import sys


def log_beta(x, y):
    return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)


def first_unanimous_round(confidence, a=0.5, b=0.5, cap=100000):
    threshold = math.log(1.0 / (1.0 - confidence))
    for n in range(1, cap + 1):
        if log_beta(a + n, b) - log_beta(a, b) + n * math.log(2.0) >= threshold:
            return n
    return None


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    family = float(sys.argv[1]) if len(sys.argv) > 1 else 0.95
    assert first_unanimous_round(0.95) == 7 and first_unanimous_round(0.99) == 10
    print(f"family-wise confidence {100 * family:g}%")
    print(f"{'checks':>6}  {'per-check level':>15}  {'first round a unanimous series resolves':>40}")
    for k in (1, 10, 19, 60, 100):
        per_check = family if k <= 1 else 1 - (1 - family) / k
        print(f"{k:>6}  {100 * per_check:>14.4g}%  {first_unanimous_round(per_check):>40}")


if __name__ == "__main__":
    main()
