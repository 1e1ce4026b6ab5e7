import FunnelCalendar
/// What `funnel generate` is asked to produce. Every output byte is a function of these values.
public struct GeneratorOptions: Sendable, Equatable {
    /// Directory the files and `truth.json` are written into (created if missing).
    public var outputDirectory: String
    /// Users acquired through networks and organically; invitees come on top.
    public var users: Int
    /// Days of data, starting at `startDate`.
    public var days: Int
    public var seed: UInt64
    public var format: GeneratorFormat
    public var gzip: Bool
    /// Adds invalid rows of every defect kind (counted in truth.json).
    public var dirty: Bool
    public var appID: String
    /// First day of data, `YYYY-MM-DD` (UTC).
    public var startDate: String
    /// When payers' purchases fall after the install: the shape of the planted LTV curve.
    public var ltvShape: LTVShape
    /// Writes ad spend by hour of day (the `hour` field, UTC) instead of one row a day, with the
    /// planted peak-hour CPI inflation (`PlantedModel.peakHours`, truth.json's peak_hours).
    public var hourlySpend: Bool

    /// The app id of generated data unless one is given (the demo's app).
    public static let defaultAppID = "com.example.app"

    public init(outputDirectory: String, users: Int = 10_000, days: Int = 30, seed: UInt64 = 1,
                format: GeneratorFormat = .csv, gzip: Bool = false, dirty: Bool = false,
                appID: String = GeneratorOptions.defaultAppID, startDate: String = "2024-05-01",
                ltvShape: LTVShape = .saturating, hourlySpend: Bool = false) {
        self.outputDirectory = outputDirectory
        self.users = users
        self.days = days
        self.seed = seed
        self.format = format
        self.gzip = gzip
        self.dirty = dirty
        self.appID = appID
        self.startDate = startDate
        self.ltvShape = ltvShape
        self.hourlySpend = hourlySpend
    }

    /// Why the options cannot be generated, if they cannot.
    public var problem: String? {
        if users < 1 || users > 100_000_000 { return "--users must be between 1 and 100000000" }
        if days < 1 || days > 730 { return "--days must be between 1 and 730" }
        if CivilTime.days(parsing: startDate) == nil { return "--start must be a date like 2024-05-01" }
        if appID.isEmpty || appID.utf8.count > 128 || appID.contains(where: { $0 == "," || $0 == "\"" || $0 == "\\" || $0.isNewline || $0.isWhitespace }) {
            return "--app-id must be 1-128 bytes without spaces, commas, quotes or backslashes"
        }
        return nil
    }
}

/// One file `funnel generate` wrote.
public struct GeneratedFile: Sendable, Codable, Equatable {
    /// File name inside the output directory.
    public var name: String
    public var kind: String
    /// Rows in the file (valid rows, duplicate copies included, dirty rows included).
    public var rows: Int
    public var dirtyRows: Int
    public var bytes: Int
}

/// What a generation run produced.
public struct GenerationResult: Sendable {
    public var files: [GeneratedFile]
    public var truthPath: String
    public var truth: TruthFile
    public var totalRows: Int { files.reduce(0) { $0 + $1.rows } }
    /// Bytes written before compression.
    public var totalBytes: Int { files.reduce(0) { $0 + $1.bytes } }
}
