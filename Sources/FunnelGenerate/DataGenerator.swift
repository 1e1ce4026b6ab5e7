import FunnelCalendar
import FunnelCore
import Foundation

/// A user about to be generated: acquisition attributes decided before their events.
struct NewUser {
    var number: Int
    var source: Int
    var campaign: Int
    var country: Int
    var ios: Bool
    var installMs: Int64
    var referrer: Int
    var invite: Int
    var inviterInstallMs: Int64
    var inviterSource: Int
    var inviterMature: Bool
}

/// Generates the whole data set user by user, streaming rows to the files as it goes.
///
/// Memory stays bounded: per-user state is a few small arrays reused for every user, invitees wait
/// in a bounded FIFO and are generated right after their inviter, and the only tables kept are
/// per (day, network, campaign, country) install counts for the ad spend rows and the realised
/// statistics for truth.json.
final class DataGenerator {
    let options: GeneratorOptions
    let seed: UInt64
    let startDay: Int
    let startMs: Int64
    let endMs: Int64
    let days: Int
    let appID: [UInt8]
    let dayCumulative: [Double]
    let sourceCumulativeByDay: [[Double]]
    let plannedDailyPaid: [Double]
    let countryCumulative: [Double]
    let countryNames: [[UInt8]]
    let currencyNames: [[UInt8]]
    let currencyRates: [Double]
    let campaignNames: [[[UInt8]]]
    let hourCumulative: [Double]

    let installs: RowWriter
    let opens: RowWriter
    let retention: RowWriter
    let purchases: RowWriter
    let invites: RowWriter
    let steps: RowWriter
    let ux: RowWriter
    let adSpend: RowWriter

    var nextUser = 0
    var nextInvite = 0
    var pending: [NewUser] = []
    var pendingHead = 0
    var stats: RealisedStats
    /// Paid installs per (day, paid network, campaign, country), for the ad spend rows.
    var paidCells: [Int32]
    let maxCampaigns = 3
    var spendTallies: [SpendTally] = []
    /// With hourly spend: paidCells split by hour of day (UTC), cell * 24 + hour.
    var paidHourCells: [Int32]
    /// With hourly spend: per source, the spend (cents) and paid installs of its planted peak hour
    /// and of all its hours, as written.
    var peakHourTallies: [Int: (peakCents: Int, peakInstalls: Int, cents: Int, installs: Int)] = [:]
    /// Realised spend (cents) of each source's planted peak day.
    var inflatedSpendCents: [Int: Int] = [:]
    /// Planned paid installs per source and day (what the budgets buy on average).
    var plannedPaidByDay: [[Double]] = []
    var activeDay: [Bool]
    var opensOnDay: [Int]

    init(options: GeneratorOptions) throws {
        self.options = options
        seed = options.seed
        let startDay = CivilTime.days(parsing: options.startDate)!
        let days = options.days
        self.startDay = startDay
        self.days = days
        startMs = Int64(startDay) * CivilTime.msPerDay
        endMs = startMs + Int64(days) * CivilTime.msPerDay
        appID = Array(options.appID.utf8)

        let sources = PlantedModel.sources
        dayCumulative = (0..<days).map { day in
            let weekend = CivilTime.weekday(days: startDay + day) >= 5 ? 1.1 : 1.0
            return weekend * (1 + 0.3 * Double(day) / Double(max(days, 1)))
        }.cumulativeSums
        sourceCumulativeByDay = (0..<days).map { day in
            sources.map { source in
                guard !source.isViral else { return 0 }
                guard source.isPaid else { return source.share }
                return source.share * DataGenerator.budget(source, day: day)
            }.cumulativeSums
        }
        // Planned (expected) paid installs per day per source: the CPI saturation reference.
        let dayTotal = dayCumulative.last!
        var dailyPaid = [Double](repeating: 0, count: sources.count)
        var byDay = [[Double]](repeating: [Double](repeating: 0, count: days), count: sources.count)
        for day in 0..<days {
            let dayUsers = Double(options.users) * ((dayCumulative[day] - (day > 0 ? dayCumulative[day - 1] : 0)) / dayTotal)
            let weights = sourceCumulativeByDay[day]
            for s in sources.indices where sources[s].isPaid {
                let planned = dayUsers * (weights[s] - (s > 0 ? weights[s - 1] : 0)) / weights.last!
                byDay[s][day] = planned
                dailyPaid[s] += planned / Double(days)
            }
        }
        plannedDailyPaid = dailyPaid
        plannedPaidByDay = byDay
        countryCumulative = PlantedModel.countries.map(\.weight).cumulativeSums
        countryNames = PlantedModel.countries.map { Array($0.code.utf8) }
        currencyNames = PlantedModel.countries.map { Array($0.currency.utf8) }
        currencyRates = PlantedModel.countries.map { ReferenceRates.usdPerUnit[$0.currency]! }
        campaignNames = sources.map { $0.campaigns.map { Array($0.utf8) } }
        hourCumulative = [0.6, 0.4, 0.3, 0.25, 0.25, 0.3, 0.5, 0.8, 1.0, 1.1, 1.1, 1.2,
                          1.3, 1.2, 1.2, 1.3, 1.4, 1.5, 1.7, 1.9, 2.0, 1.9, 1.5, 1.0].cumulativeSums

        try FileManager.default.createDirectory(atPath: options.outputDirectory, withIntermediateDirectories: true)
        func writer(_ kind: EventKind) throws -> RowWriter {
            let main = try OutputFile(path: options.outputDirectory + "/" + Self.fileName(kind, options: options, late: false),
                                      gzip: options.gzip)
            let late = kind.isEvent
                ? try OutputFile(path: options.outputDirectory + "/" + Self.fileName(kind, options: options, late: true),
                                 gzip: options.gzip)
                : nil
            return RowWriter(kind: kind, format: options.format, main: main, late: late, seed: options.seed,
                             messiness: kind.isEvent ? PlantedModel.messiness : PlantedModel.noMessiness,
                             dirty: options.dirty)
        }
        installs = try writer(.installs)
        opens = try writer(.opens)
        retention = try writer(.retention)
        purchases = try writer(.purchases)
        invites = try writer(.invites)
        steps = try writer(.steps)
        ux = try writer(.ux)
        adSpend = try writer(.adSpend)
        stats = RealisedStats(days: days)
        paidCells = [Int32](repeating: 0, count: days * sources.count * maxCampaigns * PlantedModel.countries.count)
        paidHourCells = [Int32](repeating: 0, count: options.hourlySpend ? paidCells.count * 24 : 0)
        activeDay = [Bool](repeating: false, count: days + 1)
        opensOnDay = [Int](repeating: 0, count: days + 1)
    }

    /// The daily budget modulation of a paid source (a sine with its own period and phase).
    static func budget(_ source: SourceProfile, day: Int) -> Double {
        1 + source.budgetSwing * sin(2 * Double.pi * Double(day) / source.budgetPeriod + source.budgetPeriod)
    }

    /// `installs-2024-05-01.csv`, or `installs-late-2024-05-31.csv` for the late-arriving rows.
    static func fileName(_ kind: EventKind, options: GeneratorOptions, late: Bool) -> String {
        let start = CivilTime.days(parsing: options.startDate)!
        let date = CivilTime.dateString(days: late ? start + options.days : start)
        let ext = options.format == .csv ? "csv" : "ndjson"
        return "\(kind.name)-\(late ? "late-" : "")\(date).\(ext)\(options.gzip ? ".gz" : "")"
    }

    var writers: [RowWriter] { [installs, opens, retention, purchases, invites, adSpend, steps, ux] }

    // MARK: Run

    func run() throws -> GenerationResult {
        for _ in 0..<options.users {
            let number = nextUser
            nextUser += 1
            var random = SeededRandom(seed: seed, stream: UInt64(number) &+ (1 << 32))
            let day = random.pick(cumulative: dayCumulative)
            let source = random.pick(cumulative: sourceCumulativeByDay[day])
            let campaignCount = PlantedModel.sources[source].campaigns.count
            let campaign = campaignCount == 0 ? -1 : pickCampaign(&random, count: campaignCount)
            let country = random.pick(cumulative: countryCumulative)
            let ios = random.chance(PlantedModel.iosShare)
            let installMs = startMs + Int64(day) * CivilTime.msPerDay + timeOfDay(&random, nearMidnight: true)
            generateUser(NewUser(number: number, source: source, campaign: campaign, country: country, ios: ios,
                                 installMs: installMs, referrer: -1, invite: -1, inviterInstallMs: 0,
                                 inviterSource: -1, inviterMature: false), random: &random)
            drainInvitees()
        }
        try writeAdSpend()
        for writer in writers { try writer.close() }
        return try finish()
    }

    private func pickCampaign(_ random: inout SeededRandom, count: Int) -> Int {
        let roll = random.uniform()
        if count == 3 { return roll < 0.5 ? 0 : roll < 0.8 ? 1 : 2 }
        return roll < 0.6 ? 0 : 1
    }

    /// Milliseconds into a day (whole seconds), following a diurnal curve; a planted share lands
    /// in the last five minutes before midnight so day-boundary handling matters.
    func timeOfDay(_ random: inout SeededRandom, nearMidnight: Bool = false) -> Int64 {
        if nearMidnight && random.chance(PlantedModel.nearMidnightShare) {
            stats.nearMidnightInstalls += 1
            return Int64(86_100 + random.below(300)) * 1000
        }
        let hour = random.pick(cumulative: hourCumulative)
        return Int64(hour * 3600 + random.below(3600)) * 1000
    }

    private func drainInvitees() {
        while pendingHead < pending.count {
            var invitee = pending[pendingHead]
            pendingHead += 1
            invitee.number = nextUser
            nextUser += 1
            var random = SeededRandom(seed: seed, stream: UInt64(invitee.number) &+ (1 << 32))
            invitee.ios = random.chance(PlantedModel.iosShare)
            if !random.chance(0.9) { invitee.country = random.pick(cumulative: countryCumulative) }
            generateUser(invitee, random: &random)
        }
        pending.removeAll(keepingCapacity: true)
        pendingHead = 0
    }

    func enqueueInvitee(_ invitee: NewUser) {
        guard pending.count - pendingHead < PlantedModel.maxPendingInvitees else {
            stats.inviteesDropped += 1
            return
        }
        pending.append(invitee)
    }

    func dayIndex(_ ms: Int64) -> Int { CivilTime.day(ofMs: ms) - startDay }
}
