public import FunnelCore
import FunnelSQL
public import PostgresClient

/// The revenue triangles of every app, per network and for "all" (`ltv_triangle.sql`), with each
/// cohort's buyers with their purchase days and the revenue of each (`ltv_buyers.sql`) for the
/// per-user model.
public struct LTVTriangles: Sendable {
    /// Triangles by app, then by network ("all" included).
    public let byApp: [String: [String: CohortTriangle]]
    /// Every buyer by app, when read `withBuyers`.
    public var buyersByApp: [String: [Buyer]] = [:]

    /// One buyer: their purchase days (ascending) and the revenue on each, and the last day of
    /// their cohort the projections count.
    public struct Buyer: Sendable {
        public let userID: String
        public let network: String
        public let cohortDate: String
        public let lastDay: Int
        public let days: [Int]
        public let revenue: [Double]
    }

    /// Reads the triangles; `withBuyers` false leaves the buyers' purchase days out (the per-user
    /// model then cannot fit). `completeDaysOnly` leaves out each cohort's most recent data day
    /// (incomplete while late events arrive), as the projections want; the observed curve keeps it.
    public static func load(_ connection: PostgresConnection, withBuyers: Bool = true,
                            completeDaysOnly: Bool = true) throws -> LTVTriangles {
        struct Key: Hashable {
            let app, network, cohort: String
        }
        struct Building {
            var installs = 0.0
            var revenue: [Double]
            var purchases: [Double]
            var buyers: [[Int]] = []
            var buyerRevenue: [[Double]] = []
            var age = 0
        }
        var cohorts: [Key: Building] = [:]
        var buyersByApp: [String: [Buyer]] = [:]
        for row in try connection.query(SQLCatalog.text("intermediate/metrics/ltv_triangle.sql"), [completeDaysOnly ? 1 : 0]) {
            let key = Key(app: try row.decode(String.self, at: 0), network: try row.decode(String.self, at: 1),
                          cohort: try row.decode(String.self, at: 2))
            let lastDay = try row.decode(Int.self, at: 4)
            if cohorts[key] == nil {
                cohorts[key] = Building(installs: try row.decode(Double.self, at: 3),
                                        revenue: [Double](repeating: 0, count: lastDay + 1),
                                        purchases: [Double](repeating: 0, count: lastDay + 1),
                                        age: try row.decode(Int.self, at: 8))
            }
            guard let day = try row.decode(Int?.self, at: 5), day >= 0, day <= lastDay else { continue }
            cohorts[key]!.revenue[day] += try row.decode(Double.self, at: 6)
            cohorts[key]!.purchases[day] += try row.decode(Double.self, at: 7)
        }
        if withBuyers {
            for row in try connection.query(SQLCatalog.text("intermediate/metrics/ltv_buyers.sql")) {
                let app = try row.decode(String.self, at: 0)
                let network = try row.decode(String.self, at: 1)
                let cohort = try row.decode(String.self, at: 2)
                let days = try row.decode(String.self, at: 3).split(separator: ",").compactMap { Int($0) }
                let revenue = try row.decode(String.self, at: 4).split(separator: ",").compactMap { Double($0) }
                guard !days.isEmpty, revenue.count == days.count else { continue }
                buyersByApp[app, default: []].append(Buyer(userID: try row.decode(String.self, at: 5), network: network,
                                                           cohortDate: cohort, lastDay: try row.decode(Int.self, at: 6),
                                                           days: days, revenue: revenue))
                for key in [Key(app: app, network: network, cohort: cohort), Key(app: app, network: "all", cohort: cohort)]
                where cohorts[key] != nil {
                    cohorts[key]!.buyers.append(days)
                    cohorts[key]!.buyerRevenue.append(revenue)
                }
            }
        }
        var byApp: [String: [String: [(String, CohortTriangle.Cohort)]]] = [:]
        for (key, cohort) in cohorts {
            byApp[key.app, default: [:]][key.network, default: []].append(
                (key.cohort, CohortTriangle.Cohort(installs: cohort.installs, revenueByDay: cohort.revenue,
                                                   purchasesByDay: cohort.purchases, buyerPurchaseDays: cohort.buyers,
                                                   buyerPurchaseRevenue: cohort.buyerRevenue, age: cohort.age)))
        }
        var triangles = LTVTriangles(byApp: byApp.mapValues { networks in
            networks.mapValues { CohortTriangle(cohorts: $0.sorted { $0.0 < $1.0 }.map(\.1)) }
        })
        triangles.buyersByApp = buyersByApp
        return triangles
    }
}
