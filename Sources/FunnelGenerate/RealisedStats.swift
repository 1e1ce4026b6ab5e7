/// What was actually written, accumulated while generating, for truth.json's realised values.
///
/// Every figure is computed exactly as docs/metrics.md defines the metric over the written events
/// (after deduplication; late rows count, dirty rows do not), so a correct pipeline recovers them.
struct RealisedStats {
    static let curveDays = 30
    static let ltvDays = [0, 7, 14, 30, 60, 90, 180]
    static let cycleBinHours = 0.25
    static let cycleBins = 8_000

    private static var sourceCount: Int { PlantedModel.sources.count }

    var installs = [Int](repeating: 0, count: sourceCount)
    var cohortUsers = [Int](repeating: 0, count: sourceCount)
    var cohortUsersMature = [Int](repeating: 0, count: sourceCount)
    var reinstalls = 0
    var nearMidnightInstalls = 0
    var inviteesDropped = 0
    var purchases = 0

    /// [source][day]: cohort users whose day `day` is mature, and those active on it.
    var retentionCohort = [[Int]](repeating: [Int](repeating: 0, count: curveDays + 1), count: sourceCount)
    var retentionActive = [[Int]](repeating: [Int](repeating: 0, count: curveDays + 1), count: sourceCount)
    var regularCohort = [Int](repeating: 0, count: sourceCount)
    var regularUsers = [Int](repeating: 0, count: sourceCount)

    var revenueUSD = [Double](repeating: 0, count: sourceCount)
    var payersD7 = [Int](repeating: 0, count: sourceCount)
    /// [source][horizon index]: users of cohorts mature at the horizon, and their revenue through it.
    var ltvCohort = [[Int]](repeating: [Int](repeating: 0, count: ltvDays.count), count: sourceCount)
    var ltvRevenue = [[Double]](repeating: [Double](repeating: 0, count: ltvDays.count), count: sourceCount)
    /// Horizons of the full-history LTV: what every user pays by day N, purchases after the last
    /// day of data included (simulated, not written), so that a projection from the written days
    /// can be held against these same users' future.
    static let fullLTVDays = [90, 180, 365]
    var fullLTVUsers = [Int](repeating: 0, count: sourceCount)
    var fullLTVRevenue = [[Double]](repeating: [Double](repeating: 0, count: fullLTVDays.count), count: sourceCount)

    var invitesSent = [Int](repeating: 0, count: sourceCount)
    var invitesSentMature = [Int](repeating: 0, count: sourceCount)
    /// Viral installs by the inviter's source.
    var viralInstalls = [Int](repeating: 0, count: sourceCount)
    var viralInstallsMature = [Int](repeating: 0, count: sourceCount)
    var cycleHistogram = [Int](repeating: 0, count: cycleBins + 1)

    var onboardingStarted = 0
    var screenReached = [Int](repeating: 0, count: Onboarding.screens.count)
    var onboardingCompleted = 0
    var signalHit = [Int](repeating: 0, count: Onboarding.Signal.allCases.count)
    var signalHitIncomplete = [Int](repeating: 0, count: Onboarding.Signal.allCases.count)
    var signalMiss = [Int](repeating: 0, count: Onboarding.Signal.allCases.count)
    var signalMissIncomplete = [Int](repeating: 0, count: Onboarding.Signal.allCases.count)
    var signalHitLeft = [Int](repeating: 0, count: Onboarding.Signal.allCases.count)
    var signalMissLeft = [Int](repeating: 0, count: Onboarding.Signal.allCases.count)

    init(days: Int) {}

    mutating func addCycle(hours: Double) {
        cycleHistogram[min(Self.cycleBins, Int(hours / Self.cycleBinHours))] += 1
    }

    /// Median of the recorded cycle times (bin centre), in hours.
    var medianCycleHours: Double? {
        let total = cycleHistogram.reduce(0, +)
        guard total > 0 else { return nil }
        var seen = 0
        for (bin, count) in cycleHistogram.enumerated() {
            seen += count
            if seen * 2 >= total { return (Double(bin) + 0.5) * Self.cycleBinHours }
        }
        return nil
    }

    mutating func recordOnboarding(reached: Int, completed: Bool, signals: UInt32) {
        onboardingStarted += 1
        for screen in 0..<reached { screenReached[screen] += 1 }
        if completed { onboardingCompleted += 1 }
        for signal in Onboarding.Signal.allCases where signal.screen < reached {
            let index = signal.rawValue
            let left = !completed && reached == signal.screen + 1
            if signals & (1 << UInt32(index)) != 0 {
                signalHit[index] += 1
                if !completed { signalHitIncomplete[index] += 1 }
                if left { signalHitLeft[index] += 1 }
            } else {
                signalMiss[index] += 1
                if !completed { signalMissIncomplete[index] += 1 }
                if left { signalMissLeft[index] += 1 }
            }
        }
    }
}
