// Elementary functions built from IEEE-754 +, −, ×, ÷ and exact scaling only, so they return the same bits
// on every conforming machine. The C library's log/exp/sin/cos are not specified to the last bit and do
// differ between libm implementations, which would make a seeded run machine-dependent. Accuracy is a few
// ulp, which is plenty for sampling and spectra; the point is reproducibility, not correct rounding.
// (detmath.cpp and rng.cpp compile with -ffp-contract=off, so a*b+c is never fused into one rounding.)
#pragma once

namespace gs {

double det_log(double x);  // natural log; x <= 0 gives NaN (x == 0 gives -inf)
double det_exp(double x);
// sin and cos of |x| <= pi/4 (callers reduce the argument exactly, e.g. from integer fractions of a turn).
void det_sincos_small(double x, double& s, double& c);
// The standard normal quantile: the z with P(Z <= z) = p, for p in (0, 1) (0 gives -inf, 1 gives +inf,
// anything else NaN). Accurate to about 1e-16 relative, and as accurate for p near 0 as the input
// allows; for p near 1 it works from 1 - p, so pass a lower-tail probability when one is at hand.
double det_normal_quantile(double p);

}  // namespace gs
