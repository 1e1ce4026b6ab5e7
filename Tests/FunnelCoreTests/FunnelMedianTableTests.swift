import FunnelCore
import Testing

/// The default funnel's medians computed from every point at once, on points whose figures are
/// worked out by hand.
@Suite("Funnel median table")
struct FunnelMedianTableTests {
    private func row(_ rows: [FunnelMedianTable.Row], _ app: String, _ step: Int, _ dim: String, _ value: String)
        -> FunnelMedianTable.Row? {
        rows.first { $0.appID == app && $0.stepIndex == step && $0.dim == dim && $0.dimValue == value }
    }

    @Test("an odd group's median is its middle point; an even one's lies halfway to the next")
    func oddAndEvenGroups() throws {
        var table = FunnelMedianTable()
        // Step 1 of app a: 30 and 10 on network n1, 20 on n2 (added out of order).
        for (seconds, network) in [(30.0, "n1"), (10.0, "n1"), (20.0, "n2")] {
            table.add(appID: "a", stepIndex: 1, seconds: seconds, network: network, campaign: "c", country: "FR", platform: "ios")
        }
        let rows = table.rows()
        // all: 10, 20, 30 -> the middle, 20, with one point below and one at it.
        let all = try #require(row(rows, "a", 1, "all", "all"))
        #expect(all.users == 3 && all.anchorSeconds == 20 && all.anchorBelow == 1 && all.anchorTies == 1
                && all.medianSeconds == 20, "\(all)")
        // n1: 10, 30 -> anchor at rank 0 (10), median 10 + 0.5 * (30 - 10) = 20.
        let n1 = try #require(row(rows, "a", 1, "network", "n1"))
        #expect(n1.users == 2 && n1.anchorSeconds == 10 && n1.anchorBelow == 0 && n1.anchorTies == 1
                && n1.medianSeconds == 20, "\(n1)")
        let n2 = try #require(row(rows, "a", 1, "network", "n2"))
        #expect(n2.users == 1 && n2.anchorSeconds == 20 && n2.medianSeconds == 20, "\(n2)")
        // One group for all, two networks, and one each for campaign, country and platform.
        #expect(rows.count == 6)
        #expect(rows.map(\.dim) == ["all", "network", "network", "campaign", "country", "platform"])
    }

    @Test("ties around the anchor are counted below and at it")
    func ties() throws {
        var table = FunnelMedianTable()
        // 1, 5, 5, 5, 9, 9: anchor at rank 2 is 5 (1 below, 3 at it); median 5 + 0.5 * (5 - 5) = 5.
        for seconds in [9.0, 5, 1, 5, 9, 5] {
            table.add(appID: "a", stepIndex: 2, seconds: seconds, network: "n", campaign: "c", country: "US", platform: "android")
        }
        // 7, 8 on step 3: anchor 7, median 7.5.
        for seconds in [8.0, 7] {
            table.add(appID: "a", stepIndex: 3, seconds: seconds, network: "n", campaign: "c", country: "US", platform: "android")
        }
        let rows = table.rows()
        let two = try #require(row(rows, "a", 2, "country", "US"))
        #expect(two.users == 6 && two.anchorSeconds == 5 && two.anchorBelow == 1 && two.anchorTies == 3
                && two.medianSeconds == 5, "\(two)")
        let three = try #require(row(rows, "a", 3, "all", "all"))
        #expect(three.users == 2 && three.anchorSeconds == 7 && three.anchorBelow == 0 && three.anchorTies == 1
                && three.medianSeconds == 7.5, "\(three)")
    }

    @Test("apps and steps are grouped apart, and rows come in app, step, breakdown and value order")
    func groupsApartAndOrdered() {
        var table = FunnelMedianTable()
        table.add(appID: "b", stepIndex: 1, seconds: 100, network: "z", campaign: "c", country: "DE", platform: "ios")
        table.add(appID: "a", stepIndex: 2, seconds: 4, network: "y", campaign: "c", country: "DE", platform: "ios")
        table.add(appID: "a", stepIndex: 1, seconds: 3, network: "y", campaign: "c", country: "DE", platform: "ios")
        table.add(appID: "a", stepIndex: 1, seconds: 1, network: "x", campaign: "c", country: "DE", platform: "ios")
        #expect(table.count == 4)
        let rows = table.rows()
        #expect(rows.prefix(3).map { "\($0.appID) \($0.stepIndex) \($0.dim) \($0.dimValue) \($0.users)" }
                == ["a 1 all all 2", "a 1 network x 1", "a 1 network y 1"])
        #expect(rows.filter { $0.appID == "b" }.allSatisfy { $0.users == 1 && $0.medianSeconds == 100 })
        #expect(rows.filter { $0.appID == "a" && $0.stepIndex == 2 }.count == 5)
        #expect(FunnelMedianTable().rows().isEmpty)
    }

    @Test("medians interpolate as PostgreSQL's percentile_cont does, to the last bit")
    func interpolationBits() throws {
        var table = FunnelMedianTable()
        // PostgreSQL gives 0.4 for 0.1 and 0.7 (0.1 + 0.5 * (0.7 - 0.1)); their mean, (0.1 + 0.7) / 2,
        // is 0.39999999999999997 in binary floating point.
        for seconds in [0.7, 0.1] {
            table.add(appID: "a", stepIndex: 1, seconds: seconds, network: "n", campaign: "c", country: "FR", platform: "ios")
        }
        let all = try #require(row(table.rows(), "a", 1, "all", "all"))
        #expect(all.medianSeconds == 0.4)
        #expect(all.medianSeconds != (0.1 + 0.7) / 2)
    }
}
