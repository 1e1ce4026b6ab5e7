import FunnelCore
import Testing

@Suite("Friction: statistics")
struct FrictionStatisticsTests {
    @Test("Fisher's exact test matches the tea-tasting table and scipy on larger tables",
          arguments: [
              ([3, 1, 1, 3], 0.48571428571428565),
              ([80, 50, 900, 2200], 6.7122970608223e-14),
              ([5, 0, 1, 10], 0.001373626373626374),
              ([12, 30, 40, 300], 0.006747806875158948),
              ([0, 10, 0, 5], 1.0),
          ])
    func fisherMatchesKnownValues(table: [Int], expected: Double) {
        let p = FisherExactTest.twoSidedPValue(a: table[0], b: table[1], c: table[2], d: table[3])
        #expect(abs(p - expected) <= expected * 1e-6 + 1e-15, "p = \(p), expected \(expected)")
    }

    @Test("Benjamini-Hochberg adjusts a hand example as scipy does")
    func benjaminiHochbergHandExample() {
        let q = BenjaminiHochberg.adjusted([0.01, 0.04, 0.03, 0.20, 0.005])
        let expected = [0.025, 0.05, 0.05, 0.2, 0.025]
        #expect(q.count == expected.count, "\(q)")
        #expect(zip(q, expected).allSatisfy { abs($0 - $1) < 1e-12 }, "\(q)")
        #expect(BenjaminiHochberg.adjusted([]).isEmpty)
    }

    @Test("users lost, relative risk and drop-off follow their definitions")
    func countsDefinitions() {
        let counts = FrictionCounts(usersHit: 100, droppedHit: 50, usersNotHit: 900, droppedNotHit: 90)
        #expect(counts.dropoffHit == 0.5)
        #expect(counts.dropoffNotHit == 0.1)
        #expect(abs((counts.relativeRisk ?? 0) - 5) < 1e-12)
        #expect(abs(counts.usersLost - 40) < 1e-9)
        let protective = FrictionCounts(usersHit: 100, droppedHit: 5, usersNotHit: 900, droppedNotHit: 90)
        #expect(protective.usersLost == 0)
    }

    @Test("a strong effect on a small sample is not flagged; large ones are ranked by users lost")
    func flaggingNeedsSampleSignificanceAndHarm() {
        let family = [
            FrictionCounts(usersHit: 8, droppedHit: 8, usersNotHit: 900, droppedNotHit: 90),
            FrictionCounts(usersHit: 100, droppedHit: 50, usersNotHit: 900, droppedNotHit: 90),
            FrictionCounts(usersHit: 300, droppedHit: 90, usersNotHit: 700, droppedNotHit: 70),
            FrictionCounts(usersHit: 300, droppedHit: 10, usersNotHit: 700, droppedNotHit: 150),
            FrictionCounts(usersHit: 100, droppedHit: 11, usersNotHit: 900, droppedNotHit: 90),
        ]
        let assessed = FrictionFlagRules().assess(family)
        #expect(assessed.map(\.flagged) == [false, true, true, false, false])
        #expect(assessed[0].qValue < 0.05, "significant, yet too few users")
        #expect(assessed[3].qValue < 0.05, "significant, yet protective")
        #expect(assessed.map(\.rank) == [nil, 2, 1, nil, nil])
    }
}
