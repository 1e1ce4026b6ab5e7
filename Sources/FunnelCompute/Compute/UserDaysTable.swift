import FunnelCalendar
import PostgresClient

/// A rebuild of the whole history's users' days, summed in the client: what
/// `scope_user_days.sql`, `scope_user_activity.sql` and `int_cohort_day_rollup.sql` compute on
/// the server, from the same events, with the same day numbers and filters.
///
/// The server hands over the scope's installs, every event the days are made of (with its local
/// date) and each user's revenue per day (summed in SQL, exact); the client joins the events to
/// their users, groups them by user and day, and gives each user's activity (the rows of
/// `scope_user_activity`) and the day rollup's cells (`int_cohort_day_rollup`), in COPY's text
/// format. At 300k users that replaces a sort of 4.2M events, a second one of the 2.2M days they
/// make, and a hash of 2.6M contributions, on the server.
struct UserDaysTable {
    /// The configuration the days are counted under (`compute_settings`).
    struct Settings {
        /// Days 1...regularDays count towards a regular user (`regular_user.days`).
        var regularDays: Int32
        /// Invites sent before this day count for the k-factor (`kfactor.window_days`).
        var kfactorWindowDays: Int32
        /// The last day number the rollups keep (`max_day`).
        var maxDay: Int32
        /// Day numbers by 24-hour periods from the install moment, not by local dates.
        var hours24: Bool
    }

    /// What an event is: the kinds `scope_user_events.stream.sql` sends, and the install. A refund
    /// (a purchase row with a negative revenue) is no purchase: it only makes its day one with
    /// revenue (net of it).
    enum Kind: UInt8 {
        case install = 0, open = 1, retention = 2, purchase = 3, invite = 4, refund = 5
    }

    /// A slice of a cohort: the day rollup's key without the day.
    private struct Slice: Hashable {
        var app: String
        var cohortDay: Int32
        var network: String
        var campaign: String
        var country: String
        var platform: String
    }

    /// A day rollup cell's sums.
    private struct Cell {
        var activeUsers: Int32 = 0
        var lastActiveUsers: Int32 = 0
        var payers: Int32 = 0
        var newPayers: Int32 = 0
        var revenueMicros: Int128 = 0
        var isZero: Bool { activeUsers == 0 && lastActiveUsers == 0 && revenueMicros == 0 && payers == 0 && newPayers == 0 }

        mutating func add(active: Bool, revenueMicros revenue: Int128, payer: Bool, newPayer: Bool) {
            if active { activeUsers += 1 }
            revenueMicros += revenue
            if payer { payers += 1 }
            if newPayer { newPayers += 1 }
        }
    }

    let settings: Settings

    private var usersByApp: [String: [String: Int32]] = [:]
    private var userIDs: [String] = []
    private var installedAt: [Int64] = []
    /// Each user's cohort date (days since 1970), as in their slice: kept beside it for
    /// `addEvent`, which reads it for every event.
    private var cohortDay: [Int32] = []
    private var sliceOfUser: [Int32] = []
    private var slices: [Slice] = []
    private var sliceIndex: [Slice: Int32] = [:]

    private var eventUser: [Int32] = []
    private var eventDay: [Int32] = []
    private var eventKind: [UInt8] = []
    private var eventAt: [Int64] = []
    /// Each (user, day)'s revenue in micro-USD, keyed by `dayKey`.
    private var revenue: [Int64: Int128] = [:]
    /// The last app an event named, and its users: most histories hold one app.
    private var lastApp: String?
    private var lastAppUsers: [String: Int32] = [:]

    /// The most events the client sums: at 3.9M events (300k users) the whole rebuild's peak
    /// memory grew by about 210 MB, which in proportion puts this bound near 1.6 GB; a history
    /// with more is summed by the server's statements, which spill to disk instead.
    static let maxEvents = 30_000_000

    /// A table for a history of about `expectedEvents` events (room is reserved for them at once).
    init(settings: Settings, expectedEvents: Int) {
        self.settings = settings
        let room = min(expectedEvents, Self.maxEvents)
        eventUser.reserveCapacity(room)
        eventDay.reserveCapacity(room)
        eventKind.reserveCapacity(room)
        eventAt.reserveCapacity(room)
    }

    var users: Int { userIDs.count }

    /// Adds a scope install (one per user).
    mutating func addInstall(app: String, user: String, installedAtMicros: Int64, cohortDay day: Int32,
                             network: String, campaign: String, country: String, platform: String) {
        let slice = Slice(app: app, cohortDay: day, network: network, campaign: campaign, country: country, platform: platform)
        let index: Int32
        if let known = sliceIndex[slice] {
            index = known
        } else {
            index = Int32(slices.count)
            slices.append(slice)
            sliceIndex[slice] = index
        }
        usersByApp[app, default: [:]][user] = Int32(userIDs.count)
        userIDs.append(user)
        installedAt.append(installedAtMicros)
        cohortDay.append(day)
        sliceOfUser.append(index)
    }

    /// The index of a scope user, nil for a user without an install in the scope.
    private mutating func userIndex(app: String, user: String) -> Int32? {
        if app != lastApp {
            lastApp = app
            lastAppUsers = usersByApp[app] ?? [:]
        }
        return lastAppUsers[user]
    }

    /// Adds an event: `day` is its local date as days since 1970, or a retention row's day number.
    /// Events of users outside the scope, and (but for retention rows) before their install, are
    /// not counted, as in `scope_user_days.sql`.
    mutating func addEvent(app: String, user: String, kind: Kind, atMicros: Int64, day: Int32) {
        guard let index = userIndex(app: app, user: user) else { return }
        let installed = installedAt[Int(index)]
        let dayNumber: Int32
        if kind == .retention {
            dayNumber = day
        } else {
            guard atMicros >= installed else { return }
            dayNumber = settings.hours24
                ? Int32(CivilTime.floorDiv(atMicros - installed, 86_400_000_000))
                : day - cohortDay[Int(index)]
        }
        eventUser.append(index)
        eventDay.append(dayNumber)
        eventKind.append(kind.rawValue)
        eventAt.append(atMicros)
    }

    /// Adds a user's revenue on a day after install (`numeric(20,6)` text, summed in SQL).
    mutating func addRevenue(app: String, user: String, day: Int32, usd: String) throws {
        guard let index = userIndex(app: app, user: user) else { return }
        revenue[Self.dayKey(index, day), default: 0] += try Self.micros(usd)
    }

    private static func dayKey(_ user: Int32, _ day: Int32) -> Int64 {
        Int64(user) << 32 | Int64(UInt32(bitPattern: day))
    }

    /// Micro-units of a `numeric(20,6)` text (`-12.5`, `3.141593`).
    static func micros(_ text: String) throws -> Int128 {
        var negative = false
        var whole: Int128 = 0
        var fraction: Int128 = 0
        var fractionDigits = 0
        var inFraction = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-") where whole == 0 && !inFraction: negative = true
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if inFraction {
                    guard fractionDigits < 6 else { throw UserDaysError.badRevenue(text) }
                    fraction = fraction * 10 + Int128(byte - UInt8(ascii: "0"))
                    fractionDigits += 1
                } else {
                    whole = whole * 10 + Int128(byte - UInt8(ascii: "0"))
                }
            default: throw UserDaysError.badRevenue(text)
            }
        }
        for _ in fractionDigits..<6 { fraction *= 10 }
        let value = whole * 1_000_000 + fraction
        return negative ? -value : value
    }

    /// What the sums give: the users' activity and the day rollup's rows, as COPY text, and each
    /// app's latest event.
    struct Sums {
        /// Rows of `scope_user_activity`, in its column order.
        var activity: [UInt8]
        /// Rows of `int_cohort_day_rollup` in its key's order (`dayRollupColumns`).
        var dayRollup: [UInt8]
        /// Each app's latest event (or install) moment, in micros since 1970.
        var lastEventAt: [String: Int64]
    }

    /// The columns `Sums.dayRollup` fills, in order.
    static let dayRollupColumns = "app_id, cohort_date, network, campaign, country, platform, day_n, active_users, last_active_users, revenue_usd, payers, new_payers"

    /// Groups the events by user and day and sums them.
    func sum() -> Sums {
        // The events grouped by user: a counting sort of their indexes.
        var start = [Int32](repeating: 0, count: users + 1)
        for user in eventUser { start[Int(user) + 1] += 1 }
        for index in 0..<users { start[index + 1] += start[index] }
        var next = start
        var order = [Int32](repeating: 0, count: eventUser.count)
        for (event, user) in eventUser.enumerated() {
            order[Int(next[Int(user)])] = Int32(event)
            next[Int(user)] += 1
        }

        var activity: [UInt8] = []
        activity.reserveCapacity(users * 96)
        var cells: [Int64: Cell] = [:]
        cells.reserveCapacity(users * 2)
        var lastEventAt: [String: Int64] = [:]
        var days: [(day: Int32, kind: UInt8, at: Int64)] = []
        var activeDays: [Int32] = []
        var purchaseDays: [Int32] = []
        var regularOpenTimes: [Int64] = []
        var purchaseTimes: [Int64] = []
        var dayRows: [(day: Int32, active: Bool, purchases: Bool)] = []
        for user in 0..<users {
            days.removeAll(keepingCapacity: true)
            days.append((0, Kind.install.rawValue, installedAt[user]))
            for position in Int(start[user])..<Int(start[user + 1]) {
                let event = Int(order[position])
                days.append((eventDay[event], eventKind[event], eventAt[event]))
            }
            days.sort { $0.day < $1.day }
            activeDays.removeAll(keepingCapacity: true)
            purchaseDays.removeAll(keepingCapacity: true)
            regularOpenTimes.removeAll(keepingCapacity: true)
            purchaseTimes.removeAll(keepingCapacity: true)
            dayRows.removeAll(keepingCapacity: true)
            var firstOpenAt: Int64?
            var regularOpens = 0
            var invitesSent = 0
            var latest = Int64.min
            var position = 0
            while position < days.count {
                let day = days[position].day
                var active = false
                var purchases = false
                while position < days.count && days[position].day == day {
                    let (_, kind, at) = days[position]
                    latest = max(latest, at)
                    switch Kind(rawValue: kind)! {
                    case .install, .retention:
                        active = true
                    case .open:
                        active = true
                        firstOpenAt = min(firstOpenAt ?? at, at)
                        if day >= 1 && day <= settings.regularDays {
                            regularOpens += 1
                            regularOpenTimes.append(at)
                        }
                    case .purchase:
                        purchases = true
                        purchaseTimes.append(at)
                    case .invite:
                        if day < settings.kfactorWindowDays { invitesSent += 1 }
                    case .refund:
                        break
                    }
                    position += 1
                }
                if active { activeDays.append(day) }
                if purchases { purchaseDays.append(day) }
                dayRows.append((day, active, purchases))
            }
            regularOpenTimes.sort()
            purchaseTimes.sort()
            let firstPurchaseDay = purchaseDays.first
            let lastActiveDay = activeDays.last ?? 0
            let slice = slices[Int(sliceOfUser[user])]
            lastEventAt[slice.app] = max(lastEventAt[slice.app] ?? .min, latest)

            Self.appendActivityRow(app: slice.app, user: userIDs[user], firstOpenAt: firstOpenAt, regularOpens: regularOpens,
                                   firstPurchaseDay: firstPurchaseDay, lastActiveDay: lastActiveDay, invitesSent: invitesSent,
                                   activeDays: activeDays, purchaseDays: purchaseDays, regularOpenTimes: regularOpenTimes,
                                   purchaseTimes: purchaseTimes, to: &activity)

            let sliceKey = Int64(sliceOfUser[user]) << 32
            for row in dayRows where row.day <= settings.maxDay {
                let dayRevenue = revenue[Self.dayKey(Int32(user), row.day)] ?? 0
                guard row.active || row.purchases || dayRevenue != 0 else { continue }
                cells[sliceKey | Int64(UInt32(bitPattern: row.day)), default: Cell()].add(
                    active: row.active, revenueMicros: dayRevenue, payer: row.purchases,
                    newPayer: row.purchases && row.day == firstPurchaseDay)
            }
            cells[sliceKey | Int64(UInt32(bitPattern: min(lastActiveDay, settings.maxDay))), default: Cell()].lastActiveUsers += 1
        }
        return Sums(activity: activity, dayRollup: dayRollupText(cells), lastEventAt: lastEventAt)
    }

    /// One row of `scope_user_activity`, in its column order.
    private static func appendActivityRow(app: String, user: String, firstOpenAt: Int64?, regularOpens: Int,
                                          firstPurchaseDay: Int32?, lastActiveDay: Int32, invitesSent: Int,
                                          activeDays: [Int32], purchaseDays: [Int32], regularOpenTimes: [Int64],
                                          purchaseTimes: [Int64], to activity: inout [UInt8]) {
        let tab = UInt8(ascii: "\t")
        CopyText.appendField(app, to: &activity)
        activity.append(tab)
        CopyText.appendField(user, to: &activity)
        activity.append(tab)
        if let firstOpenAt { CopyText.appendTimestamp(micros: firstOpenAt, to: &activity) } else { CopyText.appendNull(to: &activity) }
        activity.append(tab)
        CopyText.appendInteger(Int64(regularOpens), to: &activity)
        activity.append(tab)
        if let firstPurchaseDay { CopyText.appendInteger(Int64(firstPurchaseDay), to: &activity) } else { CopyText.appendNull(to: &activity) }
        activity.append(tab)
        CopyText.appendInteger(Int64(lastActiveDay), to: &activity)
        activity.append(tab)
        CopyText.appendInteger(Int64(invitesSent), to: &activity)
        activity.append(tab)
        appendList(activeDays, to: &activity)
        activity.append(tab)
        appendList(purchaseDays, to: &activity)
        activity.append(tab)
        appendTimes(regularOpenTimes, to: &activity)
        activity.append(tab)
        appendTimes(purchaseTimes, to: &activity)
        activity.append(UInt8(ascii: "\n"))
    }

    /// The cells with a count or sum not zero, as COPY text in the day rollup's key order
    /// (app, cohort date, day, network, campaign, country, platform; texts by their bytes, as the
    /// `C` collation orders them), so the key is built over rows already in its order.
    private func dayRollupText(_ cells: [Int64: Cell]) -> [UInt8] {
        let byKey = slices.indices.sorted { Self.precedes(slices[$0], slices[$1]) }
        var rank = [Int32](repeating: 0, count: slices.count)
        var cohortRank = [Int32](repeating: 0, count: slices.count)
        var cohort: Int32 = -1
        for (position, index) in byKey.enumerated() {
            rank[index] = Int32(position)
            if position == 0 || slices[byKey[position - 1]].app != slices[index].app
                || slices[byKey[position - 1]].cohortDay != slices[index].cohortDay {
                cohort += 1
            }
            cohortRank[index] = cohort
        }
        let keys = cells.compactMap { $0.value.isZero ? nil : $0.key }.sorted { left, right in
            let (leftSlice, rightSlice) = (Int(left >> 32), Int(right >> 32))
            let (leftDay, rightDay) = (Int32(truncatingIfNeeded: left), Int32(truncatingIfNeeded: right))
            if cohortRank[leftSlice] != cohortRank[rightSlice] { return cohortRank[leftSlice] < cohortRank[rightSlice] }
            if leftDay != rightDay { return leftDay < rightDay }
            return rank[leftSlice] < rank[rightSlice]
        }
        var text: [UInt8] = []
        text.reserveCapacity(keys.count * 72)
        let tab = UInt8(ascii: "\t")
        for key in keys {
            let slice = slices[Int(key >> 32)]
            let cell = cells[key]!
            CopyText.appendField(slice.app, to: &text)
            text.append(tab)
            CopyText.appendDate(days: Int(slice.cohortDay), to: &text)
            for field in [slice.network, slice.campaign, slice.country, slice.platform] {
                text.append(tab)
                CopyText.appendField(field, to: &text)
            }
            for value in [Int32(truncatingIfNeeded: key), cell.activeUsers, cell.lastActiveUsers] {
                text.append(tab)
                CopyText.appendInteger(Int64(value), to: &text)
            }
            text.append(tab)
            Self.appendMicros(cell.revenueMicros, to: &text)
            for value in [cell.payers, cell.newPayers] {
                text.append(tab)
                CopyText.appendInteger(Int64(value), to: &text)
            }
            text.append(UInt8(ascii: "\n"))
        }
        return text
    }

    /// Whether slice `a` comes before `b` in the day rollup's key order (texts by their bytes).
    private static func precedes(_ a: Slice, _ b: Slice) -> Bool {
        if a.app != b.app { return a.app.utf8.lexicographicallyPrecedes(b.app.utf8) }
        if a.cohortDay != b.cohortDay { return a.cohortDay < b.cohortDay }
        for (x, y) in [(a.network, b.network), (a.campaign, b.campaign), (a.country, b.country), (a.platform, b.platform)]
        where x != y {
            return x.utf8.lexicographicallyPrecedes(y.utf8)
        }
        return false
    }

    /// An integer array literal (`{0,1,5}`).
    private static func appendList(_ values: [Int32], to text: inout [UInt8]) {
        text.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            CopyText.appendInteger(Int64(value), to: &text)
        }
        text.append(UInt8(ascii: "}"))
    }

    /// A `timestamptz[]` literal, each element quoted (they hold spaces).
    private static func appendTimes(_ values: [Int64], to text: inout [UInt8]) {
        text.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            text.append(UInt8(ascii: "\""))
            CopyText.appendTimestamp(micros: value, to: &text)
            text.append(UInt8(ascii: "\""))
        }
        text.append(UInt8(ascii: "}"))
    }

    /// Micro-units as a decimal with six places (`-1.500000`).
    static func appendMicros(_ value: Int128, to text: inout [UInt8]) {
        let magnitude = value.magnitude
        if value < 0 { text.append(UInt8(ascii: "-")) }
        text.append(contentsOf: String(magnitude / 1_000_000).utf8)
        text.append(UInt8(ascii: "."))
        CopyText.appendDigits(UInt64(magnitude % 1_000_000), width: 6, to: &text)
    }
}

/// A value the server sent that the users' days cannot be summed from.
enum UserDaysError: Error, CustomStringConvertible {
    case badRevenue(String)

    var description: String {
        switch self {
        case .badRevenue(let text): "a day's revenue the server sent is not a numeric(20,6): \(text)"
        }
    }
}
