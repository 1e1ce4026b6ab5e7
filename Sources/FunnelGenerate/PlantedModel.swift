import Foundation

/// The acquisition source of a user and everything planted about it: cost, retention, revenue.
///
/// Paid networks carry a CPI model; `organic` and `invite` (viral installs, written with network
/// `organic` and a referrer) cost nothing.
struct SourceProfile: Sendable {
    let name: String
    let nameBytes: [UInt8]
    let isPaid: Bool
    let isViral: Bool
    /// Share of non-viral installs (before the daily modulation of paid budgets).
    let share: Double
    let cpiBase: Double
    let cpiSaturation: Double
    let weekendMultiplier: Double
    let ctr: Double
    let clickToInstall: Double
    let retentionD1: Double
    let retentionD30: Double
    let payerRate: Double
    let revenuePerPayerUSD: Double
    let extraPurchasesPerPayer: Double
    let campaigns: [String]
    /// Daily budget modulation: amplitude and period (days) of a sine over the run.
    let budgetSwing: Double
    let budgetPeriod: Double
    /// Exponent b of the planted response curve installs ~ spend^b (1: no saturation).
    let responseExponent: Double
    /// When set, the network's curve is saturating instead: installs = M * spend / (K + spend),
    /// with M this multiple of the busiest planned day's installs on weekdays (divided by the
    /// weekend multiplier on Sat/Sun) and K such that the planned mean costs cpi_base * (1 +
    /// cpi_saturation) an install.
    let saturatingCapacity: Double?

    /// Retention curve r(d) = a * d^-b through day 1 and day 30.
    var curveA: Double { retentionD1 }
    var curveB: Double { log(retentionD1 / retentionD30) / log(30) }
    func retention(day: Int) -> Double { day <= 0 ? 1 : curveA * pow(Double(day), -curveB) }

    init(_ name: String, paid: Bool = true, viral: Bool = false, share: Double, cpi: Double = 0,
         saturation: Double = 0, weekend: Double = 1, ctr: Double = 0, cti: Double = 0,
         d1: Double, d30: Double, payer: Double, revenue: Double, extra: Double,
         campaigns: [String] = [], swing: Double = 0, period: Double = 1, response: Double = 1,
         capacity: Double? = nil) {
        self.name = name
        nameBytes = Array(name.utf8)
        isPaid = paid
        isViral = viral
        self.share = share
        cpiBase = cpi
        cpiSaturation = saturation
        weekendMultiplier = weekend
        self.ctr = ctr
        clickToInstall = cti
        retentionD1 = d1
        retentionD30 = d30
        payerRate = payer
        revenuePerPayerUSD = revenue
        extraPurchasesPerPayer = extra
        self.campaigns = campaigns
        budgetSwing = swing
        budgetPeriod = period
        responseExponent = response
        saturatingCapacity = capacity
    }
}

/// Everything planted, in one place. Values are chosen so the networks' verdicts differ clearly:
/// `adnova` pays back many times (double down), `clickstorm` never does (cut), others are close.
enum PlantedModel {
    static let sources: [SourceProfile] = [
        SourceProfile("adnova", share: 0.20, cpi: 1.60, saturation: 0.30, weekend: 1.15, ctr: 0.012, cti: 0.32,
                      d1: 0.44, d30: 0.12, payer: 0.065, revenue: 105, extra: 2.0,
                      campaigns: ["adnova_evergreen", "adnova_summer", "adnova_lookalike"], swing: 0.45, period: 11, response: 0.6),
        SourceProfile("pixelreach", share: 0.16, cpi: 2.30, saturation: 0.25, weekend: 1.10, ctr: 0.009, cti: 0.28,
                      d1: 0.36, d30: 0.08, payer: 0.040, revenue: 80, extra: 1.5,
                      campaigns: ["pixelreach_video", "pixelreach_playable"], swing: 0.35, period: 17, response: 0.7,
                      capacity: 1.8),
        SourceProfile("clickstorm", share: 0.14, cpi: 3.80, saturation: 0.40, weekend: 1.25, ctr: 0.020, cti: 0.12,
                      d1: 0.18, d30: 0.012, payer: 0.010, revenue: 35, extra: 0.5,
                      campaigns: ["clickstorm_incent", "clickstorm_banner"], swing: 0.55, period: 7, response: 0.5),
        SourceProfile("vistamob", share: 0.12, cpi: 1.10, saturation: 0.50, weekend: 1.20, ctr: 0.007, cti: 0.35,
                      d1: 0.30, d30: 0.05, payer: 0.025, revenue: 60, extra: 1.0,
                      campaigns: ["vistamob_search", "vistamob_display", "vistamob_retarget"], swing: 0.5, period: 13, response: 1.0),
        SourceProfile("socialio", share: 0.13, cpi: 2.70, saturation: 0.20, weekend: 1.05, ctr: 0.010, cti: 0.25,
                      d1: 0.40, d30: 0.10, payer: 0.050, revenue: 90, extra: 1.8,
                      campaigns: ["socialio_feed", "socialio_stories"], swing: 0.3, period: 23, response: 0.65),
        SourceProfile("organic", paid: false, share: 0.25, d1: 0.40, d30: 0.10, payer: 0.045, revenue: 85, extra: 1.6),
        SourceProfile("invite", paid: false, viral: true, share: 0, d1: 0.46, d30: 0.14, payer: 0.055, revenue: 95,
                      extra: 1.8),
    ]
    static let organicIndex = 5
    static let viralIndex = 6
    static var paidIndices: [Int] { sources.indices.filter { sources[$0].isPaid } }

    /// Verdict rule on expected LTV_D180 / CPI.
    static let doubleDownRatio = 1.5
    static let cutRatio = 0.7

    // MARK: Users
    static let openRate = 0.95
    static let engagementLevels = [0.5, 1.0, 1.5]
    /// Retention/payer/invite multiplier for users who did not complete onboarding.
    static let dropoutMultiplier = 0.5
    static let extraOpensDay0 = 0.4
    static let extraOpensPerActiveDay = 0.6
    static let sessionSecondsMedian = 95.0
    static let retentionPartnerShare = 0.3
    static let retentionPartnerMaxDay = 30
    static let reinstallShare = 0.02
    static let nearMidnightShare = 0.02
    static let iosShare = 0.55
    static let regularOpens = 3
    static let regularDays = 7

    // MARK: Revenue
    /// Days from install to the first purchase ~ Exp(mean), later ones a further Exp(mean) after.
    static let firstPurchaseMeanDays = 1.0
    static let laterPurchaseMeanDays = 45.0
    static let purchaseSigma = 1.0
    /// Days over which the power-law and front-loaded-linear shapes spread a payer's purchases.
    static let purchaseHorizonDays = 730.0
    /// The power-law shape's exponent: cumulative revenue grows as (day + 1)^0.5.
    static let powerLawExponent = 0.5

    // MARK: Invites
    static let invitesPerUser = 0.55
    static let inviteConversion = 0.30
    static let inviteWindowDays = 30
    static let inviteSendMeanDays = 3.0
    static let inviteAcceptMeanHours = 20.0
    static let inviteChannels: [[UInt8]] = ["sms", "whatsapp", "email", "link"].map { Array($0.utf8) }
    static let maxPendingInvitees = 1 << 20

    // MARK: Countries (weight, CPI multiplier before normalisation, currency)
    static let countries: [(code: String, weight: Double, cpi: Double, currency: String)] = [
        ("US", 0.30, 1.6, "USD"), ("GB", 0.08, 1.3, "GBP"), ("DE", 0.08, 1.2, "EUR"), ("FR", 0.06, 1.1, "EUR"),
        ("BR", 0.10, 0.5, "BRL"), ("IN", 0.12, 0.3, "INR"), ("JP", 0.07, 1.4, "JPY"), ("CN", 0.08, 0.6, "CNY"),
        ("KR", 0.04, 1.0, "KRW"), ("CA", 0.04, 1.3, "CAD"), ("AU", 0.03, 1.3, "AUD"),
    ]
    /// Country CPI multipliers scaled so their install-weighted mean is 1 (cpi_base is the mean).
    static let countryCPIMultipliers: [Double] = {
        let mean = countries.reduce(0) { $0 + $1.weight * $1.cpi } / countries.reduce(0) { $0 + $1.weight }
        return countries.map { $0.cpi / mean }
    }()

    // MARK: Messiness
    static let noMessiness = Messiness(lateShare: 0, duplicateShare: 0, duplicateInLateFileShare: 0,
                                       offsetShare: 0, epochShare: 0)
    static let messiness = Messiness(lateShare: 0.01, duplicateShare: 0.005, duplicateInLateFileShare: 0.3,
                                     offsetShare: 0.04, epochShare: 0.01)
    static let restatementShare = 0.04

    // MARK: Spend response
    /// Planted peak days: (source, day as a share of the run, CPI multiplier). Each costs that
    /// many times the curve's CPI for its installs.
    static let inflatedDays: [(source: Int, dayShare: Double, multiplier: Double)] = [
        (0, 0.4, 2.5), (3, 0.6, 2.5), (2, 0.75, 2.5),
    ]
    /// Planted peak hours (with `--hourly-spend`): (source, hour of day UTC, CPI multiplier). In
    /// that hour an install costs this many times what it costs in the network's other hours;
    /// the day's total spend stays the curve's.
    static let peakHours: [(source: Int, hour: Int, multiplier: Double)] = [
        (0, 20, 2.5), (2, 12, 2.5),
    ]
}

/// The planted share of rows that arrive late, repeat, or carry non-UTC / epoch timestamps.
struct Messiness: Sendable {
    var lateShare: Double
    var duplicateShare: Double
    var duplicateInLateFileShare: Double
    var offsetShare: Double
    var epochShare: Double
    /// Offsets (minutes east of UTC) of the timestamps not written in UTC.
    static let offsets = [120, -300, 330, -420]
}
