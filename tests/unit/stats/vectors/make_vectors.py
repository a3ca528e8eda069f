#!/usr/bin/python3
"""Reference values for tests/unit/stats from SciPy, an implementation independent of ours.

Regenerate (Debian 12: python3-scipy 1.10.1, python3-numpy 1.24.2) from the repo root with
    /usr/bin/python3 tests/unit/stats/vectors/make_vectors.py
which rewrites tests/unit/stats/vectors/*.json. Inputs come from a fixed numpy seed, so the
output is stable for a given SciPy/numpy version; commit the script and its output together.

Where SciPy has no public function, the reference is written here from the textbook
definition and says so (Hodges-Lehmann interval, rounds-to-resolve); the bootstrap
interval arithmetic is checked against SciPy's own BCa code fed our replicates.
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import optimize, special, stats
from scipy.stats import _resampling
from scipy.stats._hypotests import _get_wilcoxon_distr

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261202)


def write(name, payload):
    payload = {"generator": f"make_vectors.py, scipy {scipy.__version__}, numpy {np.__version__}",
               **payload}
    with open(os.path.join(HERE, name), "w") as out:
        json.dump(payload, out, indent=1)
        out.write("\n")


def floats(a):
    return [float(v) for v in a]


# ---- descriptive ---------------------------------------------------------------------------
PROBS = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0]
samples = {
    "one": [4.25],
    "two": [3.0, 1.0],
    "odd7": floats(rng.normal(10, 2, 7)),
    "even8": floats(rng.normal(10, 2, 8)),
    "ties": [2.5, 2.5, 2.5, 2.5],
    "zeros": [0.0, 0.0, 1.0, 2.0, 0.0],
    "lognormal30": floats(rng.lognormal(-3, 0.2, 30)),
    "rounded25": floats(np.round(rng.normal(1, 0.1, 25), 2)),
    "offset": floats(1e9 + rng.normal(0, 1, 12)),
}
descriptive = []
for name, x in samples.items():
    a = np.array(x)
    case = {
        "name": name, "x": x, "probs": PROBS,
        "median": float(np.median(a)),
        "quantiles": floats(np.quantile(a, PROBS)),  # numpy default: Hyndman & Fan type 7
        "mad": float(stats.median_abs_deviation(a)),
        "iqr": float(stats.iqr(a)),
        "mean": float(np.mean(a)),
    }
    if len(a) >= 2:
        case["sd"] = float(np.std(a, ddof=1))
    descriptive.append(case)
write("descriptive.json", {"cases": descriptive})

# ---- outliers (modified z-scores, Iglewicz & Hoaglin; Tukey fences) -------------------------
outliers = []
for name, x in {
    "clean": floats(rng.normal(1, 0.01, 20)),
    "spikes": floats(np.concatenate([rng.normal(1, 0.01, 18), [1.2, 0.7, 3.0]])),
    "ties": [1.0] * 6,
    "mad_zero": [1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 5.0],
}.items():
    a = np.array(x)
    med = np.median(a)
    mad = stats.median_abs_deviation(a)
    if mad > 0:
        scores = 0.6745 * (a - med) / mad
    else:
        mean_ad = np.mean(np.abs(a - med))
        scores = (a - med) / (1.253314 * mean_ad) if mean_ad > 0 else np.zeros_like(a)
    q1, q3 = np.quantile(a, [0.25, 0.75])
    iqr = q3 - q1
    outliers.append({
        "name": name, "x": x, "scores": floats(scores),
        "modified_z": [int(i) for i in np.nonzero(np.abs(scores) > 3.5)[0]],
        "mild": [int(i) for i in np.nonzero((a < q1 - 1.5 * iqr) | (a > q3 + 1.5 * iqr))[0]],
        "severe": [int(i) for i in np.nonzero((a < q1 - 3 * iqr) | (a > q3 + 3 * iqr))[0]],
    })
write("outliers.json", {"cases": outliers})

# ---- distributions -------------------------------------------------------------------------
zs = [-8.0, -3.5, -1.959963984540054, -1.0, -0.1, 0.0, 0.5, 1.644853626951472, 2.5, 6.0]
ps = [1e-12, 1e-6, 0.001, 0.025, 0.1, 0.5, 0.8, 0.975, 0.999, 1 - 1e-9]
dofs = [1.0, 2.0, 3.0, 7.0, 29.0, 150.0]
t_points = [-40.0, -2.5, -0.3, 0.0, 1.0, 2.045, 12.0]
distributions = {
    "normal": [{"z": z, "cdf": float(stats.norm.cdf(z)), "sf": float(stats.norm.sf(z))} for z in zs],
    "normal_quantile": [{"p": p, "q": float(stats.norm.ppf(p))} for p in ps],
    "t_cdf": [{"t": t, "dof": d, "cdf": float(stats.t.cdf(t, d))} for d in dofs for t in t_points],
    # scipy 1.10's t.ppf (cephes stdtrit) is off by up to ~2e-9 relative (e.g. dof 3,
    # p 0.005: stats.t.cdf of its answer is 0.0050000000240). So: closed forms where they
    # exist (dof 1: tan(pi (p - 1/2)); dof 2: (2p - 1) / sqrt(2 p (1 - p))), and elsewhere
    # SciPy's ppf with a looser bound plus a round trip through SciPy's accurate t.cdf.
    "t_quantile_closed_form": [
        {"p": p, "dof": 1.0, "q": math.tan(math.pi * (p - 0.5))} for p in [0.005, 0.2, 0.8, 0.975]] + [
        {"p": p, "dof": 2.0, "q": (2 * p - 1) / math.sqrt(2 * p * (1 - p))}
        for p in [0.005, 0.2, 0.8, 0.975]],
    "t_quantile": [{"p": p, "dof": d, "q": float(stats.t.ppf(p, d))}
                   for d in dofs for p in [0.005, 0.2, 0.8, 0.975, 0.995]],
    "beta": [{"x": x, "a": a, "b": b, "i": float(special.betainc(a, b, x))}
             for (x, a, b) in [(0.1, 2, 3), (0.5, 0.5, 0.5), (0.9, 10, 2), (0.3, 50, 40),
                               (0.999, 3, 0.5)]],
    "binomial_half": [{"k": k, "n": n, "cdf": float(stats.binom.cdf(k, n, 0.5))}
                      for (k, n) in [(0, 1), (0, 10), (3, 10), (5, 10), (12, 30), (40, 100),
                                     (480, 1000), (700, 1500)]],
    "wilcoxon_pmf": [{"n": n, "pmf": floats(_get_wilcoxon_distr(n))} for n in [1, 2, 5, 12]],
}
write("distributions.json", distributions)

# ---- paired: sign test, Wilcoxon, Hodges-Lehmann -------------------------------------------
sign = [{"wins": w, "losses": l, "p": float(stats.binomtest(w, w + l, 0.5).pvalue)}
        for (w, l) in [(1, 0), (3, 3), (9, 1), (0, 12), (20, 10), (30, 0), (7, 8), (150, 110)]]


def wilcoxon_case(name, d, mode):
    d = np.asarray(d, dtype=float)
    res = stats.wilcoxon(d, zero_method="wilcox", correction=False, mode=mode)
    nz = d[d != 0]
    r = stats.rankdata(np.abs(nz))
    return {"name": name, "d": floats(d), "method": mode,
            "r_plus": float(np.sum(r[nz > 0])), "r_minus": float(np.sum(r[nz < 0])),
            "statistic": float(res.statistic), "p": float(res.pvalue)}


wilcoxon = [
    wilcoxon_case("exact5", rng.normal(0.1, 0.2, 5), "exact"),
    wilcoxon_case("exact10", rng.normal(-0.05, 0.1, 10), "exact"),
    wilcoxon_case("exact20_null", rng.normal(0, 0.1, 20), "exact"),
    wilcoxon_case("exact30_shift", np.log(rng.lognormal(-0.04, 0.05, 30)), "exact"),
    wilcoxon_case("exact50", rng.normal(0.02, 0.1, 50), "exact"),
    wilcoxon_case("approx30", rng.normal(-0.03, 0.1, 30), "approx"),
    wilcoxon_case("approx_ties15", np.round(rng.normal(0.1, 0.2, 15), 1), "approx"),
    wilcoxon_case("approx_ties40", np.round(rng.normal(-0.02, 0.05, 40), 2), "approx"),
    wilcoxon_case("approx_zeros", [0.0, 0.0, 0.3, -0.1, 0.25, 0.4, -0.05, 0.3, 0.6, 0.2, 0.15, 0.1],
                  "approx"),
    wilcoxon_case("approx80", rng.normal(0.01, 0.1, 80), "approx"),
]


def hodges_lehmann(d, confidence):
    """Textbook reference (Hollander & Wolfe sec. 3.3); critical values from SciPy's exact
    signed-rank distribution for n <= 50, continuity-corrected normal beyond."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2)
    m = len(walsh)
    half_alpha = (1 - confidence) / 2
    if n <= 50:
        cdf = np.cumsum(_get_wilcoxon_distr(n))
        ok = np.nonzero(cdf <= half_alpha * (1 + 1e-12))[0]
        k = int(ok[-1]) + 1 if len(ok) else 0
        achieved = 1 - 2 * (cdf[k - 1] if k else _get_wilcoxon_distr(n)[0])
    else:
        sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        k = int(math.floor(m / 2 + 0.5 - stats.norm.ppf(1 - half_alpha) * sigma))
        k = max(k, 0)
        achieved = 1 - 2 * stats.norm.cdf((max(k, 1) - 0.5 - m / 2) / sigma)
    reached = k > 0
    k = max(k, 1)
    return {"d": floats(d), "confidence": confidence, "estimate": float(np.median(walsh)),
            "low": float(walsh[k - 1]), "high": float(walsh[m - k]), "k": k,
            "achieved_level": float(achieved), "level_reached": reached}


hl = [hodges_lehmann(rng.normal(0.1, 0.2, n), c)
      for (n, c) in [(1, 0.95), (3, 0.95), (5, 0.95), (6, 0.95), (10, 0.95), (10, 0.99),
                     (30, 0.95), (50, 0.9), (60, 0.95), (200, 0.99)]]
hl.append(hodges_lehmann(np.round(rng.normal(0.0, 0.1, 25), 1), 0.95))
write("paired.json", {"sign_test": sign, "wilcoxon": wilcoxon, "hodges_lehmann": hl})

# ---- Mann-Whitney U ------------------------------------------------------------------------
def mwu_case(name, x, y, method):
    res = stats.mannwhitneyu(x, y, use_continuity=True, alternative="two-sided", method=method)
    return {"name": name, "x": floats(x), "y": floats(y), "method": method,
            "u1": float(res.statistic), "p": float(res.pvalue)}


mann_whitney = [
    mwu_case("exact_1_1", [1.0], [2.0], "exact"),
    mwu_case("exact_5_7", rng.normal(0, 1, 5), rng.normal(1, 1, 7), "exact"),
    mwu_case("exact_8_8", rng.normal(0, 1, 8), rng.normal(0.3, 1, 8), "exact"),
    mwu_case("exact_20_15", rng.normal(0, 1, 20), rng.normal(0.8, 1, 15), "exact"),
    mwu_case("asymptotic_30_30", rng.normal(0, 1, 30), rng.normal(0.5, 1, 30), "asymptotic"),
    mwu_case("asymptotic_ties", np.round(rng.normal(0, 1, 12), 0), np.round(rng.normal(0.5, 1, 25), 0),
             "asymptotic"),
    mwu_case("asymptotic_small", [1.0, 2.0, 3.0], [2.5, 4.0], "asymptotic"),
]
write("mann_whitney.json", {"cases": mann_whitney})

# ---- bootstrap -----------------------------------------------------------------------------
# (1) Exact check of the interval arithmetic: replicates from our own resample indices are
# handed to SciPy's BCa code (scipy.stats._resampling._bca_interval, the code behind
# scipy.stats.bootstrap(method="BCa")), which also computes the jackknife itself.
n = 30
baseline = rng.lognormal(math.log(0.20), 0.08, n)
candidate = baseline * rng.lognormal(math.log(0.6), 0.05, n)
idx = rng.integers(0, n, size=(2000, n))
replicates = np.median(baseline[idx], axis=1) / np.median(candidate[idx], axis=1)


def ratio_of_medians_by_index(i, axis=-1):
    return np.median(baseline[i], axis=axis) / np.median(candidate[i], axis=axis)


estimate = float(np.median(baseline) / np.median(candidate))
exact_cases = []
for confidence in [0.95, 0.99]:
    alpha = (1 - confidence) / 2
    a1, a2, a_hat = _resampling._bca_interval((np.arange(n),), ratio_of_medians_by_index, -1,
                                              alpha, replicates, None)
    z0 = special.ndtri(_resampling._percentile_of_score(replicates, estimate, axis=-1))
    exact_cases.append({
        "confidence": confidence,
        "percentile": floats(np.percentile(replicates, [alpha * 100, (1 - alpha) * 100])),
        "bca": floats([np.percentile(replicates, float(a1) * 100),
                       np.percentile(replicates, float(a2) * 100)]),
        "z0": float(z0), "acceleration": float(a_hat)})

# (2) Loose check of the whole procedure against scipy.stats.bootstrap on the same data with
# its own random resamples: agreement only to Monte Carlo error, so the test uses a tolerance.
loose = {}
for method in ["percentile", "BCa"]:
    ci = stats.bootstrap((baseline, candidate),
                         lambda b, c, axis: np.median(b, axis=axis) / np.median(c, axis=axis),
                         paired=True, vectorized=True, n_resamples=100000, confidence_level=0.95,
                         method=method, random_state=np.random.default_rng(7)).confidence_interval
    loose[method] = [float(ci.low), float(ci.high)]
write("bootstrap.json", {"baseline": floats(baseline), "candidate": floats(candidate),
                         "estimate": estimate, "replicates": floats(replicates),
                         "exact": exact_cases, "scipy_bootstrap_100000": loose})

# ---- power (reference written here from the formula; SciPy supplies the quantiles) ---------
def rounds_for_effect(sigma, effect, confidence, power):
    if sigma == 0:
        return 2
    ratio = sigma / math.log1p(effect)
    upper = 1 - (1 - confidence) / 2
    n = max(2, math.ceil((stats.norm.ppf(upper) + stats.norm.ppf(power)) ** 2 * ratio ** 2))
    while max(2, math.ceil((stats.t.ppf(upper, n - 1) + stats.t.ppf(power, n - 1)) ** 2
                           * ratio ** 2)) > n:
        n += 1
    return n


power = [{"sigma": s, "effect": e, "confidence": c, "power": p, "rounds": rounds_for_effect(s, e, c, p)}
         for (s, e, c, p) in [(0.0, 0.02, 0.95, 0.8), (0.001, 0.02, 0.95, 0.8), (0.01, 0.02, 0.95, 0.8),
                              (0.03, 0.02, 0.95, 0.8), (0.05, 0.01, 0.99, 0.9), (0.2, 0.05, 0.95, 0.8),
                              (0.02, 0.02, 0.9, 0.5)]]
write("power.json", {"cases": power})

# ---- scaling fit ---------------------------------------------------------------------------
def model(x, a, b, k):
    return a + b * np.power(x, k)


scaling = []
for name, ns, a, b, k, noise in [
    ("exact_k1.5", [1, 2, 4, 8, 16, 32], 0.05, 0.002, 1.5, 0.0),
    ("noisy_linear", [1, 2, 4, 8, 16, 32, 64], 0.02, 0.01, 1.0, 0.03),
    ("noisy_quadratic", [0.25, 0.5, 1, 2, 4, 8], 0.1, 0.5, 2.0, 0.02),
    ("noisy_sublinear", [10, 20, 50, 100, 200, 500, 1000, 2000], 0.3, 0.01, 0.7, 0.02),
]:
    x = np.array(ns, dtype=float)
    t = model(x, a, b, k) * (1 + noise * rng.standard_normal(len(x)))
    case = {"name": name, "n": floats(x), "time": floats(t), "true_k": k}
    if noise > 0:
        popt, pcov = optimize.curve_fit(model, x, t, p0=[t.min(), (t.max() - t.min()) / x.max(), 1.0],
                                        xtol=1e-14, ftol=1e-14, gtol=1e-14, maxfev=100000)
        se = math.sqrt(pcov[2, 2])
        q = stats.t.ppf(0.975, len(x) - 3)
        case.update({"a": float(popt[0]), "b": float(popt[1]), "k": float(popt[2]),
                     "k_low": float(popt[2] - q * se), "k_high": float(popt[2] + q * se)})
    scaling.append(case)
write("scaling.json", {"cases": scaling})
