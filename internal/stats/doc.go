// Package stats holds the statistics kernels of arena's regression tests:
// Welch's two-sample t-test; the anytime-valid sequential t-test that
// arena's sequential mode checks after every run (Sequential), whose
// evidence is the likelihood ratio of the t statistic under a discrete
// prior on the effect's size (LogLikelihoodRatio,
// LogMixtureLikelihoodRatio: noncentral over central t densities) or the
// Bayes factor of a N(0, g) prior (LogBayesFactor); Hedges' g with a
// confidence interval; and the sample size of a fixed design from the
// noncentral t distribution. Distributions come from gonum
// (distuv.StudentsT, distuv.NoncentralT); nothing here uses a normal
// approximation where the t distribution is meant. The likelihood ratio is
// computed here, by a recurrence, because gonum's noncentral t density is
// a difference of two CDFs that loses its digits in the tails where the
// sequential test decides.
//
// Conventions: x is the candidate arm and y the baseline, so a positive
// difference or t statistic means the candidate scored higher. Variances are
// sample variances (n−1 in the denominator).
//
// The kernels are plain functions of summaries (n, mean, variance), so the
// calibration simulations can feed them running sums and run millions of
// looks in a second; arena's regression.Tester calls the same code.
package stats
