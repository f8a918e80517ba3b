import STUN

/// The seeded random source of the simulations and generated test inputs, so that they are reproducible: the
/// library's own SplitMix64 (Steele et al. 2014; the ICE agent, gatherer and TURN client draw from it), not a copy.
package typealias SplitMix64 = STUN.SplitMix64
