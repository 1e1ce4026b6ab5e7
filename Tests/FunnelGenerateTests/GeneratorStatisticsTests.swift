import Foundation
import FunnelCore
import FunnelGenerate
import Testing

/// Statistics recomputed from the written files of one mid-size data set, independently of the
/// generator's own bookkeeping, against truth.json.
final class MidSizeDataSet: Sendable {
    static let shared = MidSizeDataSet()

    let truth: TruthFile
    let rows: [EventKind: [[Substring: Substring]]]
    let users: [Substring: User]

    private init() {
        let directory = StrictReader.temporaryDirectory("midsize")
        let result = try! Generator.run(GeneratorOptions(outputDirectory: directory, users: 16_000, days: 45, seed: 3))
        truth = result.truth
        var rows: [EventKind: [[Substring: Substring]]] = [:]
        var seen: [EventKind: Set<Substring>] = [:]
        for path in try! StrictReader.dataFiles(directory) {
            let text = try! String(contentsOfFile: path, encoding: .utf8)
            let kind = EventKind(fileName: (path as NSString).lastPathComponent)!
            var lines = text.split(separator: "\n")
            let header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false)
            for line in lines {
                var row: [Substring: Substring] = [:]
                for (name, value) in zip(header, line.split(separator: ",", omittingEmptySubsequences: false))
                where !value.isEmpty { row[name] = value }
                if kind.isEvent {
                    // Deduplicate by event id, as SPEC says: the same event twice counts once.
                    guard seen[kind, default: []].insert(row["event_id"]!).inserted else { continue }
                }
                rows[kind, default: []].append(row)
            }
        }
        self.rows = rows
        users = Self.buildUsers(rows)
    }

    static let startDay = 19_844 // 2024-05-01
    static func day(_ value: Substring?) -> Int {
        let ms = StrictReader.parseTimestamp(String(value!))!
        return Int((ms >= 0 ? ms : ms - 86_399_999) / 86_400_000) - startDay
    }

    struct User: Sendable {
        var source: String
        var installDay: Int
        var installMs: Int64
        var activeDays = Set<Int>()
        var opensByDay: [Int: Int] = [:]
        var purchaseDays: [Int] = []
    }

    /// First install per user; source is the network, or `invite` for viral installs.
    static func buildUsers(_ rows: [EventKind: [[Substring: Substring]]]) -> [Substring: User] {
        var users: [Substring: User] = [:]
        for row in rows[.installs]! {
            let ms = StrictReader.parseTimestamp(String(row["installed_at"]!))!
            let source = row["referrer_user_id"] != nil ? "invite" : String(row["network"]!)
            if let existing = users[row["user_id"]!], existing.installMs <= ms { continue }
            users[row["user_id"]!] = User(source: source, installDay: Self.day(row["installed_at"]), installMs: ms)
        }
        for row in rows[.opens]! {
            let offset = Self.day(row["opened_at"]) - users[row["user_id"]!]!.installDay
            users[row["user_id"]!]!.activeDays.insert(offset)
            users[row["user_id"]!]!.opensByDay[offset, default: 0] += 1
        }
        for row in rows[.retention]! {
            users[row["user_id"]!]!.activeDays.insert(Int(row["day"]!)!)
        }
        for row in rows[.purchases]! {
            users[row["user_id"]!]!.purchaseDays.append(Self.day(row["purchased_at"]) - users[row["user_id"]!]!.installDay)
        }
        return users
    }
}

@Suite("funnel generate: planted statistics", .serialized)
struct GeneratorStatisticsTests {
    let data = MidSizeDataSet.shared
    let lastDay = 44

    func network(_ name: String) -> NetworkTruth { data.truth.networks.first { $0.network == name }! }

    @Test("day-1 and day-7 retention per network match truth.json")
    func retention() {
        let users = data.users
        for truth in data.truth.networks {
            for day in [1, 7] {
                let cohort = users.values.filter { $0.source == truth.network && $0.installDay + day <= lastDay }
                let rate = Double(cohort.filter { $0.activeDays.contains(day) }.count) / Double(cohort.count)
                let realised = day == 1 ? truth.realised.retentionD1! : truth.realised.retentionD7!
                let planted = day == 1 ? truth.planted.retentionD1 : truth.planted.retentionD7
                #expect(abs(rate - realised) < 0.002, "\(truth.network) d\(day)")
                #expect(abs(rate - planted) < 0.04, "\(truth.network) d\(day): \(rate) vs planted \(planted)")
            }
        }
    }

    @Test("regular-user share (3+ opens on days 1..7) per network matches truth.json")
    func regularUsers() {
        for truth in data.truth.networks {
            let cohort = data.users.values.filter { $0.source == truth.network && $0.installDay + 7 <= lastDay }
            let regular = cohort.filter { user in (1...7).reduce(0) { $0 + user.opensByDay[$1, default: 0] } >= 3 }
            let share = Double(regular.count) / Double(cohort.count)
            #expect(abs(share - truth.realised.regularUserShare!) < 0.002, "\(truth.network)")
            #expect(abs(share - truth.planted.expectedRegularUserShare) < 0.05, "\(truth.network): \(share)")
        }
    }

    @Test("CPI per network (final spend / paid installs) matches truth.json and the verdicts differ")
    func cpi() {
        var spend: [String: Double] = [:]
        var keys: [String: Double] = [:]
        for row in data.rows[.adSpend]! {
            let key = ["date", "network", "campaign", "country"].map { String(row[Substring($0)] ?? "") }.joined(separator: "|")
            keys[key] = Double(row["spend"]!)!
        }
        for (key, value) in keys { spend[String(key.split(separator: "|")[1]), default: 0] += value }
        for truth in data.truth.networks where truth.kind == "paid" {
            let installs = data.users.values.filter { $0.source == truth.network }.count
            let cpi = spend[truth.network]! / Double(installs)
            #expect(abs(cpi - truth.realised.cpi!) < 1e-6, "\(truth.network)")
            #expect(abs(cpi / truth.planted.expectedCpi - 1) < 0.08, "\(truth.network): \(cpi) vs \(truth.planted.expectedCpi)")
            #expect(truth.realised.dailyCpiHigh! > truth.realised.dailyCpiLow! * 1.2, "\(truth.network) saturation")
        }
        let verdicts = Set(data.truth.networks.map(\.planted.expectedVerdict))
        #expect(verdicts.isSuperset(of: ["double_down", "cut", "hold"]))
    }

    @Test("payer rate by day 7 per network matches truth.json")
    func payerRate() {
        var payers = 0, cohortSize = 0, expected = 0.0
        for truth in data.truth.networks {
            let cohort = data.users.values.filter { $0.source == truth.network && $0.installDay + 7 <= lastDay }
            let paid = cohort.filter { $0.purchaseDays.contains { $0 <= 7 } }.count
            #expect(abs(Double(paid) / Double(cohort.count) - truth.realised.payerRateD7!) < 1e-9, "\(truth.network)")
            payers += paid
            cohortSize += cohort.count
            expected += truth.planted.expectedPayerRateD7 * Double(cohort.count)
        }
        #expect(abs(Double(payers) / Double(cohortSize) - expected / Double(cohortSize)) < 0.006)
    }

    @Test("k-factor of mature cohorts (viral installs per cohort user) matches truth.json")
    func kFactor() {
        let mature = Set(data.users.filter { $0.value.installDay + 30 + 7 <= lastDay }.keys)
        let viral = data.rows[.installs]!.filter { row in
            row["referrer_user_id"].map { mature.contains($0) } ?? false
        }
        let viralUsers = Set(viral.map { $0["user_id"]! })
        let k = Double(viralUsers.count) / Double(mature.count)
        #expect(abs(k - data.truth.invites.realisedKFactor!) < 1e-9)
        #expect(abs(k - data.truth.invites.plantedKFactor) < 0.035, "k = \(k)")
    }

    @Test("a Pinyin keyboard covering the signup button costs users; noise on other screens costs none")
    func friction() {
        var onSignup = Set<Substring>(), covered = Set<Substring>()
        var welcomeErrors = Set<Substring>(), onWelcome = Set<Substring>()
        var profileValidation = Set<Substring>(), onProfile = Set<Substring>()
        for row in data.rows[.ux]! {
            let user = row["user_id"]!
            switch row["screen"]! {
            case "signup":
                onSignup.insert(user)
                if row["type"] == "keyboard", let phase = row["phase"], phase.hasPrefix("did_"),
                   let kx = row["kb_x"].flatMap({ Int($0) }), let ky = row["kb_y"].flatMap({ Int($0) }),
                   let kw = row["kb_w"].flatMap({ Int($0) }), let kh = row["kb_h"].flatMap({ Int($0) }),
                   let ay = row["action_y"].flatMap({ Int($0) }), let ah = row["action_h"].flatMap({ Int($0) }),
                   let ax = row["action_x"].flatMap({ Int($0) }), let aw = row["action_w"].flatMap({ Int($0) }),
                   let sh = row["screen_h"].flatMap({ Int($0) }),
                   kw > 0, kh > 0, ky + kh <= sh, ky < ay + ah, ay < ky + kh, kx < ax + aw, ax < kx + kw {
                    covered.insert(user)
                    #expect(row["input_mode"] == "zh-Hans-pinyin")
                }
            case "welcome":
                onWelcome.insert(user)
                if row["type"] == "network_error" { welcomeErrors.insert(user); #expect(row["feedback_shown"] == "true") }
            case "profile":
                onProfile.insert(user)
                if row["type"] == "validation_error" { profileValidation.insert(user) }
            default: break
            }
        }
        let completed = Set(data.rows[.steps]!.filter { $0["step"] == "onboarding_complete" }.map { $0["user_id"]! })
        func dropoff(_ users: Set<Substring>) -> Double {
            Double(users.filter { !completed.contains($0) }.count) / Double(users.count)
        }
        let planted = data.truth.friction.planted.first { $0.screen == "signup" }!
        #expect(covered.count == planted.usersHit)
        #expect(abs(dropoff(covered) - planted.dropoffHit!) < 1e-9)
        #expect(dropoff(covered) > dropoff(onSignup.subtracting(covered)) + 0.2)
        #expect(abs(dropoff(welcomeErrors) - dropoff(onWelcome.subtracting(welcomeErrors))) < 0.07)
        #expect(abs(dropoff(profileValidation) - dropoff(onProfile.subtracting(profileValidation))) < 0.07)
        for signal in data.truth.friction.unplanted where signal.usersHit >= 300 {
            #expect(abs(signal.dropoffHit! - signal.dropoffNotHit!) < 0.07, "\(signal.screen) \(signal.type)")
        }
        for signal in data.truth.friction.planted {
            #expect(signal.dropoffHit! > signal.dropoffNotHit! + 0.2, "\(signal.screen) \(signal.type)")
        }
    }
}
