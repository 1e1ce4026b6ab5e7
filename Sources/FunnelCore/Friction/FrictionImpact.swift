/// Users who reached a screen, split by whether they hit a friction type there and whether they
/// dropped off.
public struct FrictionCounts: Sendable, Equatable {
    public var usersHit: Int
    public var droppedHit: Int
    public var usersNotHit: Int
    public var droppedNotHit: Int

    public init(usersHit: Int, droppedHit: Int, usersNotHit: Int, droppedNotHit: Int) {
        self.usersHit = usersHit
        self.droppedHit = droppedHit
        self.usersNotHit = usersNotHit
        self.droppedNotHit = droppedNotHit
    }

    /// Drop-off rate of users who hit it (nil without such users).
    public var dropoffHit: Double? { usersHit > 0 ? Double(droppedHit) / Double(usersHit) : nil }
    public var dropoffNotHit: Double? { usersNotHit > 0 ? Double(droppedNotHit) / Double(usersNotHit) : nil }

    /// dropoff_hit / dropoff_not_hit; infinite when nobody who missed it dropped but some who hit did.
    public var relativeRisk: Double? {
        guard let hit = dropoffHit, let notHit = dropoffNotHit else { return nil }
        if notHit == 0 { return hit > 0 ? .infinity : nil }
        return hit / notHit
    }

    /// Users the friction cost: users hit x (dropoff_hit - dropoff_not_hit), never negative.
    public var usersLost: Double {
        guard let hit = dropoffHit, let notHit = dropoffNotHit else { return 0 }
        return max(0, Double(usersHit) * (hit - notHit))
    }

    /// Fisher's exact two-sided p-value of the 2x2 table.
    public var pValue: Double {
        FisherExactTest.twoSidedPValue(a: droppedHit, b: usersHit - droppedHit,
                                       c: droppedNotHit, d: usersNotHit - droppedNotHit)
    }
}

/// When a (screen, friction type) is flagged.
public struct FrictionFlagRules: Sendable, Equatable {
    /// Minimum users who hit the friction.
    public var minimumUsersHit: Int
    /// Minimum users who hit it and dropped off.
    public var minimumDroppedHit: Int
    /// The false discovery rate controlled with Benjamini-Hochberg over all pairs of an app.
    public var falseDiscoveryRate: Double

    public init(minimumUsersHit: Int = 20, minimumDroppedHit: Int = 5, falseDiscoveryRate: Double = 0.05) {
        self.minimumUsersHit = minimumUsersHit
        self.minimumDroppedHit = minimumDroppedHit
        self.falseDiscoveryRate = falseDiscoveryRate
    }
}

/// The verdict on one (screen, friction type) of an app.
public struct FrictionAssessment: Sendable, Equatable {
    public var counts: FrictionCounts
    public var pValue: Double
    public var qValue: Double
    public var meetsMinimumSample: Bool
    public var flagged: Bool
    /// 1 = costs the most users; nil when not flagged.
    public var rank: Int?
}

extension FrictionFlagRules {
    /// Tests every pair, adjusts for the family with BH, flags those that are significant, large
    /// enough and harmful (relative risk > 1), and ranks the flagged ones by users lost.
    public func assess(_ family: [FrictionCounts]) -> [FrictionAssessment] {
        let pValues = family.map(\.pValue)
        let qValues = BenjaminiHochberg.adjusted(pValues)
        var assessments = family.indices.map { index -> FrictionAssessment in
            let counts = family[index]
            let large = counts.usersHit >= minimumUsersHit && counts.droppedHit >= minimumDroppedHit
            let harmful = (counts.relativeRisk ?? 0) > 1
            return FrictionAssessment(counts: counts, pValue: pValues[index], qValue: qValues[index],
                                      meetsMinimumSample: large,
                                      flagged: large && harmful && qValues[index] <= falseDiscoveryRate)
        }
        let flagged = assessments.indices.filter { assessments[$0].flagged }
            .sorted { assessments[$0].counts.usersLost > assessments[$1].counts.usersLost }
        for (position, index) in flagged.enumerated() { assessments[index].rank = position + 1 }
        return assessments
    }
}
