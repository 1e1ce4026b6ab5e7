import Foundation

/// How files are read and when a file is refused: the `[ingest]` table of funnel.toml, its
/// `[[ingest.apps]]` zones and its `[[ingest.files]]` rules. `funnel ingest`, `funnel run` and
/// `funnel worker` read it; a command-line option overrides the file's setting for that run.
/// None of it changes computed numbers, so it is not part of the compute fingerprint.
public struct IngestSettings: Sendable, Equatable {
    /// The zone of timestamps written without one, for every file no rule or app names; nil
    /// rejects such timestamps.
    public var assumeTimeZone: String?
    /// A file is refused when more than this share of its rows is rejected (0.5: most of them).
    /// 1 never refuses a file for its rows.
    public var maxRejectShare = IngestSettings.defaultMaxRejectShare
    /// `--max-expansion`: decompressed bytes per compressed byte before a .gz file is refused.
    public var maxExpansion: Double?
    /// `--max-decompressed`: the size past which a .gz file is refused, as written (`64G`).
    public var maxDecompressed: String?
    /// Per app: the zone of its zone-less timestamps (an app's exports are written in one zone).
    public var appTimeZones: [String: String] = [:]
    /// Rules by file name, the first matching one applying.
    public var files: [FileRule] = []

    /// The vendors whose exports ingest reads (`source`; FunnelIngest's `VendorSource`).
    public static let vendorSources = ["appsflyer", "adjust", "segment", "rudderstack", "posthog", "amplitude", "firebase"]

    /// More than half of the rows rejected refuses the file.
    public static let defaultMaxRejectShare = 0.5

    public init() {}

    /// A `[[ingest.files]]` rule: the files whose name matches `pattern` (a shell glob on the
    /// file's name, `*` and `?`, case-sensitive) are read with these settings.
    public struct FileRule: Sendable, Equatable {
        public var pattern: String
        /// The kind of every row of such a file (as `--kind`).
        public var kind: String?
        /// The zone of the file's zone-less timestamps (over the app's and the `[ingest]` one).
        public var assumeTimeZone: String?
        /// The vendor whose export such a file is (as `--source`; docs/imports.md).
        public var source: String?

        public init(pattern: String, kind: String? = nil, assumeTimeZone: String? = nil, source: String? = nil) {
            self.pattern = pattern
            self.kind = kind
            self.assumeTimeZone = assumeTimeZone
            self.source = source
        }

        /// Whether the rule applies to the file at `path` (its last path component).
        public func matches(path: String) -> Bool {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return Glob.matches(Array(pattern.utf8), Array(name.utf8))
        }
    }

    /// Parses a size such as `500M`, `64G` or `1048576` (K, M, G, T are powers of 1024).
    public static func parseSize(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("B") && digits.count > 1 && units[digits[digits.index(digits.endIndex, offsetBy: -2)]] != nil {
            digits = digits.dropLast()
        }
        var scale: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            scale = unit
            digits = digits.dropLast()
        }
        guard let value = Int64(digits), value > 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: scale)
        return overflow ? nil : product
    }

    /// The first rule that applies to `path`.
    public func rule(for path: String) -> FileRule? {
        files.first { $0.matches(path: path) }
    }
}

/// Whether a zone is spelled as funnel accepts one for zone-less timestamps: an IANA name, or a
/// fixed offset (`+02:00`, `-0530`, `+05`, `Z`, `UTC`).
public enum TimeZoneSpelling {
    /// The seconds east of UTC of a fixed offset; nil when `text` is not one.
    public static func offsetSeconds(_ text: String) -> Int? {
        if text == "Z" || text == "z" || text == "UTC" || text == "+00:00" { return 0 }
        let bytes = Array(text.utf8)
        guard bytes.count == 6 || bytes.count == 5 || bytes.count == 3,
              bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") else { return nil }
        let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4,
              digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              bytes.count != 6 || bytes[3] == UInt8(ascii: ":") else { return nil }
        let values = digits.map { Int($0 - 0x30) }
        let hours = values[0] * 10 + values[1]
        let minutes = values.count == 4 ? values[2] * 10 + values[3] : 0
        guard hours <= 23, minutes <= 59 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return bytes[0] == UInt8(ascii: "-") ? -seconds : seconds
    }

    /// Whether `text` is a fixed offset or a known IANA zone name.
    public static func isValid(_ text: String) -> Bool {
        offsetSeconds(text) != nil || (!text.isEmpty && TimeZone(identifier: text) != nil)
    }
}

/// Shell-style matching of a file name against `*` (any run of bytes) and `?` (one byte).
enum Glob {
    static func matches(_ pattern: [UInt8], _ name: [UInt8]) -> Bool {
        var p = 0, n = 0
        var star = -1, resume = 0
        while n < name.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == name[n] {
                p += 1
                n += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p
                resume = n
                p += 1
            } else if star >= 0 {
                p = star + 1
                resume += 1
                n = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
