import Foundation
@testable import FunnelCompute
import FunnelCore
import FunnelIngest
import Logging
import PostgresClient
import Testing
import TestSupport

/// Rows known by a device id alone, and the rows that tie a device to the app's user
/// (docs/inputs.md, "Users, devices and identity"), loaded by the real loader and computed
/// incrementally after each file, which must leave every derived table as a full rebuild would.
@Suite("Device ids and identity")
struct DeviceIdentityTests {
    typealias Loaded = LoadedFilesIncrementalTests.Loaded

    static let installs = "event_id,app_id,user_id,installed_at,network,platform,country,campaign,referrer_user_id,invite_id,device_id"
    static let opens = "event_id,app_id,user_id,opened_at,device_id"
    static let purchases = "event_id,app_id,user_id,purchased_at,revenue,currency,device_id"

    @Test("an install with a device id alone, then a purchase with the user id: one user with the purchase in its LTV")
    func deviceInstallThenUserPurchase() throws {
        let l = try Loaded(configuration: FunnelConfiguration())
        let f = l.fixture
        // The install without a user id; a user whose id is the same text as the device's
        // id; and a row with neither id.
        try l.load("installs", Self.installs, [
            "i1,app,,2024-03-01T10:00:00Z,adnova,ios,US,c1,,,A1B2",
            "i2,app,A1B2,2024-03-01T11:00:00Z,organic,android,DE,,,,",
            "i3,app,,2024-03-01T12:00:00Z,adnova,ios,US,c1,,,",
        ])
        #expect(try f.snapshot("(select line, reason from ingest_rejects)")
            == ["(4,\"missing required field user_id (or device_id): a row needs the app's user id or a device id\")"])
        try l.load("opens", Self.opens, ["o1,app,,2024-03-02T10:00:00Z,A1B2"])
        try l.computeMatchesFull("a device-only install and open")
        #expect(try f.snapshot("(select user_id, network, active_days from int_user_facts)")
            == ["(A1B2,organic,{0})", "(device:A1B2,adnova,\"{0,1}\")"])

        // The purchase names the user and the device: the device's history becomes the user's.
        try l.load("purchases", Self.purchases, ["p1,app,u1,2024-03-03T10:00:00Z,4.99,USD,A1B2"])
        try l.computeMatchesFull("the tie in a later file")
        #expect(try f.snapshot("(select user_id, network, cohort_date, active_days, purchase_days from int_user_facts)")
            == ["(A1B2,organic,2024-03-01,{0},{})", "(u1,adnova,2024-03-01,\"{0,1}\",{2})"])
        #expect(try f.double("select sum(revenue_usd)::float8 from int_cohort_day_rollup where network = 'adnova'") == 4.99)
        #expect(try f.double("select revenue::float8 from fct_ltv where network = 'adnova' and day = 2 and not projected") == 4.99)
        #expect(try f.int("select installs from fct_ltv where network = 'adnova' and day = 0 and not projected") == 1)
        #expect(try f.snapshot("(select user_id, device_id from raw_installs)") == ["(A1B2,)", "(u1,A1B2)"])
        #expect(try f.snapshot("(select app_id, device_id, user_id from identity_links)") == ["(app,A1B2,u1)"])

        // A later row of the device alone counts for the user at once.
        try l.load("opens", Self.opens, ["o2,app,,2024-03-05T10:00:00Z,A1B2"])
        try l.computeMatchesFull("a linked device's later row")
        #expect(try f.snapshot("(select user_id from raw_opens)") == ["(u1)", "(u1)"])
        #expect(try f.string("select active_days::text from int_user_facts where user_id = 'u1'") == "{0,1,4}")

        // The same files again change nothing: their rows are stored, the tie is kept.
        let before = try LoadedFilesIncrementalTests.marts.map { try f.snapshot($0) }
        try l.load("installs", Self.installs, ["i1,app,,2024-03-01T10:00:00Z,adnova,ios,US,c1,,,A1B2"])
        try l.load("purchases", Self.purchases, ["p1,app,u9,2024-03-03T10:00:00Z,4.99,USD,A1B2"])
        let again = try f.compute(l.configuration)
        #expect(again.usersRebuilt == 0)
        #expect(try LoadedFilesIncrementalTests.marts.map { try f.snapshot($0) } == before)
        #expect(try f.snapshot("(select app_id, device_id, user_id from identity_links)") == ["(app,A1B2,u1)"])
        #expect(try f.int("select count(*) from dirty_cohort_days") == 0)
    }

    /// One history: a device-only install, open and purchase, a second user's install, open and
    /// purchase, and the row that ties the device to its user (`tie`), delivered in files in the
    /// order given; returns the derived tables.
    static func history(_ files: [(kind: String, rows: [String])]) throws -> [String: [String]] {
        let l = try Loaded(configuration: FunnelConfiguration())
        var kinds: Set<String> = []
        for (index, file) in files.enumerated() {
            let header = switch file.kind {
            case "installs": installs
            case "opens": opens
            default: purchases
            }
            try l.load(file.kind, header, file.rows)
            kinds.insert(file.kind)
            // Computed from the first file with both installs and opens on (the opens' first
            // arrival would rebuild everything, not compute incrementally).
            if kinds.isSuperset(of: ["installs", "opens"]) {
                try l.computeMatchesFull("file \(index + 1) (\(file.kind))")
            }
        }
        #expect(try l.fixture.snapshot("(select user_id, network, cohort_date, active_days, purchase_days from int_user_facts)") == [
            "(u1,adnova,2024-03-01,\"{0,1,2}\",{3})", "(u2,organic,2024-03-01,\"{0,1}\",{})",
        ])
        #expect(try l.fixture.double("select sum(revenue_usd)::float8 from int_cohort_day_rollup") == 5.99)
        #expect(try l.fixture.int("select count(*) from raw_opens where user_id like 'device:%'") == 0)
        var tables: [String: [String]] = [:]
        for mart in LoadedFilesIncrementalTests.marts { tables[mart] = try l.fixture.snapshot(mart) }
        return tables
    }

    static let install = "i1,app,,2024-03-01T10:00:00Z,adnova,ios,US,c1,,,dev9"
    static let userInstall = "i2,app,u2,2024-03-01T12:00:00Z,organic,android,DE,,,,"
    static let deviceOpen = "o1,app,,2024-03-02T10:00:00Z,dev9"
    static let tie = "o2,app,u1,2024-03-03T10:00:00Z,dev9"
    static let userOpen = "o3,app,u2,2024-03-02T09:00:00Z,"
    static let devicePurchase = "p1,app,,2024-03-04T10:00:00Z,4.99,USD,dev9"
    static let userPurchase = "p2,app,u1,2024-03-04T11:00:00Z,1.00,USD,"

    @Test("the tie before or after the device's rows, in the same file or another: the same results")
    func tieInAnyOrder() throws {
        let tieLast = try Self.history([
            ("installs", [Self.install, Self.userInstall]), ("purchases", [Self.devicePurchase, Self.userPurchase]),
            ("opens", [Self.deviceOpen, Self.userOpen]), ("opens", [Self.tie]),
        ])
        let tieFirst = try Self.history([
            ("opens", [Self.tie]), ("installs", [Self.install, Self.userInstall]),
            ("purchases", [Self.devicePurchase, Self.userPurchase]), ("opens", [Self.deviceOpen, Self.userOpen]),
        ])
        let sameFile = try Self.history([
            ("installs", [Self.install, Self.userInstall]), ("opens", [Self.deviceOpen, Self.tie, Self.userOpen]),
            ("purchases", [Self.devicePurchase, Self.userPurchase]),
        ])
        let tieBetween = try Self.history([
            ("installs", [Self.install]), ("opens", [Self.tie, Self.userOpen]),
            ("installs", [Self.userInstall]), ("opens", [Self.deviceOpen]),
            ("purchases", [Self.devicePurchase, Self.userPurchase]),
        ])
        for mart in LoadedFilesIncrementalTests.marts {
            #expect(tieFirst[mart] == tieLast[mart], "\(mart): tie first")
            #expect(sameFile[mart] == tieLast[mart], "\(mart): tie in the same file")
            #expect(tieBetween[mart] == tieLast[mart], "\(mart): tie between the device's rows")
        }
    }

    @Test("a device's invite: once the device is tied, its invitee's inviter is the user")
    func deviceInviter() throws {
        let l = try Loaded(configuration: FunnelConfiguration())
        let f = l.fixture
        try l.load("installs", Self.installs, [
            "i1,app,,2024-03-01T10:00:00Z,adnova,ios,US,c1,,,dev9",
            "i2,app,u2,2024-03-10T10:00:00Z,organic,ios,US,,,inv1,",
        ])
        try l.load("invites", "event_id,app_id,user_id,invite_id,sent_at,device_id", ["v1,app,,inv1,2024-03-01T12:00:00Z,dev9"])
        try l.load("opens", Self.opens, ["o1,app,u2,2024-03-10T11:00:00Z,"])
        try l.computeMatchesFull("a device's invite")
        #expect(try f.snapshot("(select user_id, inviter_user_id, inviter_cohort_date from int_user_facts where inviter_user_id is not null)")
            == ["(u2,device:dev9,2024-03-01)"])
        try l.load("opens", Self.opens, ["o2,app,u1,2024-03-02T10:00:00Z,dev9"])
        try l.computeMatchesFull("the inviting device tied to its user")
        #expect(try f.snapshot("(select user_id, inviter_user_id, inviter_cohort_date from int_user_facts where inviter_user_id is not null)")
            == ["(u2,u1,2024-03-01)"])
        #expect(try f.snapshot("(select user_id from raw_invites)") == ["(u1)"])
    }

    @Test("a second tie of a linked device keeps the first; the row keeps its own user id")
    func firstTieWins() throws {
        let l = try Loaded(configuration: FunnelConfiguration())
        let f = l.fixture
        try l.load("installs", Self.installs, [Self.install, Self.userInstall])
        try l.load("opens", Self.opens, [
            "o1,app,u1,2024-03-02T10:00:00Z,dev9", "o2,app,u2,2024-03-02T09:00:00Z,dev9",
        ])
        try l.computeMatchesFull("two ties of one device in one file")
        // The earlier row in time wins.
        #expect(try f.snapshot("(select device_id, user_id from identity_links)") == ["(dev9,u2)"])
        #expect(try f.snapshot("(select user_id, installs from int_user_facts)") == ["(u2,2)"])
        try l.load("opens", Self.opens, ["o3,app,u3,2024-03-03T10:00:00Z,dev9"])
        try l.computeMatchesFull("a tie to a third user")
        #expect(try f.snapshot("(select device_id, user_id from identity_links)") == ["(dev9,u2)"])
        #expect(try f.snapshot("(select event_id, user_id from raw_opens)") == ["(o1,u1)", "(o2,u2)", "(o3,u3)"])
    }
}
