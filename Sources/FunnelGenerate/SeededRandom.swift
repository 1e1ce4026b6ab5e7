import Foundation

/// A fast, seeded pseudo-random generator (xoshiro256**, seeded through SplitMix64).
///
/// Every random choice of the generator goes through one of these, seeded from the run's seed and
/// a stream number (a user, a file), so the output is a pure function of the arguments.
package struct SeededRandom {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator for stream `stream` of the run seeded with `seed`.
    package init(seed: UInt64, stream: UInt64 = 0) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 ^ (stream &+ 0x632B_E59B_D9B4_E019) &* 0xBF58_476D_1CE4_E5B9
        s0 = Self.splitMix(&state)
        s1 = Self.splitMix(&state)
        s2 = Self.splitMix(&state)
        s3 = Self.splitMix(&state)
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    package mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1).
    package mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [low, high).
    package mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * uniform()
    }

    /// True with probability `p`.
    package mutating func chance(_ p: Double) -> Bool {
        uniform() < p
    }

    /// Uniform integer in 0..<n (n > 0).
    package mutating func below(_ n: Int) -> Int {
        Int(truncatingIfNeeded: ((next() >> 32) &* UInt64(n)) >> 32)
    }

    /// Uniform integer in the closed range.
    package mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// Standard normal (Box-Muller, one value per call).
    package mutating func normal() -> Double {
        let u1 = max(uniform(), 0x1.0p-53)
        let u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Exponential with the given mean.
    package mutating func exponential(mean: Double) -> Double {
        -mean * log(1 - uniform())
    }

    /// Lognormal with the given mean of the distribution (not of its log) and log-scale sigma.
    package mutating func lognormal(mean: Double, sigma: Double) -> Double {
        exp(log(mean) - sigma * sigma / 2 + sigma * normal())
    }

    /// Poisson with a small mean (Knuth's method; means here stay below ~10).
    package mutating func poisson(mean: Double) -> Int {
        guard mean > 0 else { return 0 }
        let limit = exp(-mean)
        var product = uniform()
        var count = 0
        while product > limit {
            product *= uniform()
            count += 1
        }
        return count
    }

    /// An index drawn from cumulative weights (last element = total).
    package mutating func pick(cumulative: [Double]) -> Int {
        let target = uniform() * cumulative[cumulative.count - 1]
        var index = 0
        while index < cumulative.count - 1 && cumulative[index] <= target { index += 1 }
        return index
    }
}

extension Array where Element == Double {
    /// Running sums, for `SeededRandom.pick(cumulative:)`.
    package var cumulativeSums: [Double] {
        var total = 0.0
        return map { total += $0; return total }
    }
}
