public import Foundation

/// `truth.json`: every parameter `funnel generate` planted and the values it actually realised.
///
/// Planted values are the model's parameters and their expectations; realised values are computed
/// from the rows written (after deduplication, late rows included, invalid rows excluded) with the
/// definitions of docs/metrics.md, over mature cohorts only. Keys are snake_case; money is in USD;
/// rates are fractions 0..1; days count calendar days in UTC (day 0 = install day).
public struct TruthFile: Codable, Sendable, Equatable {
    public var about: String
    public var generator: GeneratorTruth
    public var definitions: [String: String]
    public var networks: [NetworkTruth]
    public var totals: TotalsTruth
    public var invites: InviteTruth
    public var onboarding: OnboardingTruth
    public var friction: FrictionTruth
    public var messiness: MessinessTruth
    public var dirty: DirtyTruth
    public var files: [GeneratedFile]
    public var spendResponse: [SpendResponseTruth]
    public var inflatedDays: [InflatedDayTruth]
    /// Planted peak hours; empty unless generated with hourly spend.
    public var peakHours: [PeakHourTruth] = []
    public var ltv: LTVTruth
    /// The planted optimum of the generator's own daily budget over the planted curves.
    public var plannedOptimum: PlannedOptimumTruth?

    /// Reads a truth file.
    public static func load(from url: URL) throws -> TruthFile {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(TruthFile.self, from: Data(contentsOf: url))
    }

    /// The JSON bytes, keys sorted, so the same run always writes the same file.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// The arguments of the run.
public struct GeneratorTruth: Codable, Sendable, Equatable {
    public var seed: UInt64
    public var users: Int
    public var days: Int
    public var startDate: String
    public var lastDate: String
    public var appId: String
    public var format: String
    public var gzip: Bool
    public var dirty: Bool
    public var reportingTimeZone: String
    public var dayRule: String
}

/// One acquisition source: a paid network, `organic`, or `invite` (viral installs).
public struct NetworkTruth: Codable, Sendable, Equatable {
    public var network: String
    /// `paid`, `organic` or `invite`.
    public var kind: String
    /// The `network` value its install rows carry.
    public var installNetworkValue: String
    public var planted: NetworkPlanted
    public var realised: NetworkRealised
}

/// The planted model of a source and its expectations.
public struct NetworkPlanted: Codable, Sendable, Equatable {
    public var shareOfNonViralInstalls: Double
    public var cpiBase: Double
    public var cpiSaturation: Double
    public var weekendMultiplier: Double
    public var expectedCpi: Double
    public var ctr: Double
    public var clickToInstall: Double
    public var retentionCurveA: Double
    public var retentionCurveB: Double
    public var retentionD1: Double
    public var retentionD3: Double
    public var retentionD7: Double
    public var retentionD14: Double
    public var retentionD30: Double
    public var expectedRegularUserShare: Double
    public var payerRate: Double
    public var expectedPayerRateD7: Double
    public var meanRevenuePerPayerUsd: Double
    public var meanPurchasesPerPayer: Double
    public var expectedLtvD7: Double
    public var expectedLtvD30: Double
    public var expectedLtvD90: Double
    public var expectedLtvD180: Double
    public var expectedLtvD365: Double
    public var ltvD180ToCpi: Double?
    public var expectedVerdict: String
}

/// What the written rows of a source show.
public struct NetworkRealised: Codable, Sendable, Equatable {
    public var installs: Int
    public var paidInstalls: Int
    public var spendUsd: Double
    public var cpi: Double?
    public var dailyCpiLow: Double?
    public var dailyCpiHigh: Double?
    public var impressions: Int
    public var clicks: Int
    public var ctr: Double?
    public var clickToInstall: Double?
    public var adSpendRows: Int
    public var restatedAdSpendRows: Int
    /// Classic day-N retention over cohorts whose day N has happened; index = N (0 unused).
    public var retentionByDay: [Double?]
    public var retentionCohortByDay: [Int]
    public var retentionD1: Double?
    public var retentionD7: Double?
    public var retentionD30: Double?
    public var regularUserShare: Double?
    public var regularUserCohort: Int
    public var payerRateD7: Double?
    public var revenueUsd: Double
    public var ltvDays: [Int]
    public var ltvByDay: [Double?]
    public var ltvCohortByDay: [Int]
    public var invitesPerUserMature: Double?
    public var kFactorMature: Double?
}

/// Counts of what was generated.
public struct TotalsTruth: Codable, Sendable, Equatable {
    public var acquiredUsers: Int
    public var invitedUsers: Int
    public var users: Int
    public var installRows: Int
    public var reinstalls: Int
    public var paidInstalls: Int
    public var spendUsd: Double
    public var purchases: Int
    public var revenueUsd: Double
    public var events: [String: Int]
    public var rowsWritten: Int
    public var bytesWritten: Int
}

/// The invite program.
public struct InviteTruth: Codable, Sendable, Equatable {
    public var windowDays: Int
    public var plantedInvitesPerUser: Double
    public var plantedInviteConversion: Double
    public var plantedKFactor: Double
    public var plantedCycleTimeHours: Double
    public var sendDelayMeanDays: Double
    public var acceptDelayMeanHours: Double
    public var matureCohortRule: String
    public var matureCohortUsers: Int
    public var realisedInvitesPerUser: Double?
    public var realisedInviteConversion: Double?
    public var realisedKFactor: Double?
    public var invitesSent: Int
    public var viralInstalls: Int
    public var realisedCycleTimeHours: Double?
    public var inviteesDroppedFromQueue: Int
}

/// The onboarding funnel.
public struct OnboardingTruth: Codable, Sendable, Equatable {
    public var steps: [String]
    public var plantedBaseDropoff: [String: Double]
    public var plannedCompletion: Double
    public var dropoutRetentionMultiplier: Double
    public var started: Int
    public var reached: [String: Int]
    public var completed: Int
    public var realisedDropoff: [String: Double]
    public var realisedCompletion: Double?
}

/// One telemetry signal on one screen, planted friction or harmless noise.
public struct FrictionSignal: Codable, Sendable, Equatable {
    public var screen: String
    public var type: String
    public var condition: String
    public var planted: Bool
    public var plantedShareHit: Double?
    /// Planted probability of leaving the onboarding at this screen, hit and not hit.
    public var plantedScreenDropoffHit: Double
    public var plantedScreenDropoffNotHit: Double
    /// Expected drop-off as SPEC measures it (no onboarding completion), hit and not hit.
    public var expectedDropoffHit: Double
    public var expectedDropoffNotHit: Double
    public var usersHit: Int
    public var usersNotHit: Int
    public var shareHit: Double?
    /// Realised: no onboarding completion among users who reached the screen.
    public var dropoffHit: Double?
    public var dropoffNotHit: Double?
    /// Realised: left the onboarding at this very screen.
    public var screenDropoffHit: Double?
    public var screenDropoffNotHit: Double?
}

/// The planted onboarding frictions and the noise that must not be flagged.
public struct FrictionTruth: Codable, Sendable, Equatable {
    public var dropoffDefinition: String
    public var planted: [FrictionSignal]
    public var unplanted: [FrictionSignal]
    public var unplantedScreens: [String]
}

/// Duplicates, late rows, restatements and time-zone variety.
public struct MessinessTruth: Codable, Sendable, Equatable {
    public var plantedDuplicateShare: Double
    public var plantedLateShare: Double
    public var duplicates: [String: Int]
    public var lateRows: [String: Int]
    public var adSpendRestatements: Int
    public var restatementRule: String
    public var plantedOffsetTimestampShare: Double
    public var offsetTimestamps: Int
    public var epochMillisecondTimestamps: Int
    public var nearMidnightInstalls: Int
}

/// Invalid rows written with `--dirty`.
public struct DirtyTruth: Codable, Sendable, Equatable {
    public var enabled: Bool
    public var total: Int
    public var byKind: [DirtyKindTruth]
}

/// Invalid rows of one kind, by defect.
public struct DirtyKindTruth: Codable, Sendable, Equatable {
    public var kind: String
    public var file: String
    public var total: Int
    public var byDefect: [String: Int]
}

/// The planted LTV curve (`funnel generate --ltv-shape`) and what the generated users pay over a
/// longer history than the files hold: the truth a projection from the written days is held to.
public struct LTVTruth: Codable, Sendable, Equatable {
    /// `saturating`, `power-law` or `front-loaded-linear`.
    public var shape: String
    public var definition: String
    /// The horizons of `expected` and `fullHistory`, in days after the install day.
    public var days: [Int]
    public var fullHistoryRule: String
    /// One curve per install network value (organic holds the invited users) and `all`.
    public var networks: [LTVCurveTruth]
}

/// One network's planted LTV at the horizons of `LTVTruth.days`, in USD per install.
public struct LTVCurveTruth: Codable, Sendable, Equatable {
    public var network: String
    /// Users installed through the network (each once, reinstalls not counted again).
    public var users: Int
    /// The planted model's expectation.
    public var expected: [Double]
    /// What these users pay through each horizon, purchases after the data's last day included.
    public var fullHistory: [Double]
}
