import ArgumentParser
import FunnelCore
import FunnelIngest

/// `--max-expansion` and `--max-decompressed`: how far a gzip input may expand before it is
/// refused as a likely decompression bomb (shared by `ingest`, `worker` and `run`). Given, they
/// win over `[ingest]`'s `max_expansion` and `max_decompressed`.
struct ExpansionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Refuse a .gz file that expands past this many times its compressed size (checked once it has given 64 MiB); default: max_expansion in [ingest], else 100.",
        valueName: "ratio"))
    var maxExpansion: Double?

    @Option(help: ArgumentHelp("Refuse a .gz file that expands past this size in all (K, M, G, T suffixes); default: max_decompressed in [ingest], else 64G.",
                               valueName: "size"))
    var maxDecompressed: String?

    func validate() throws {
        if let maxExpansion {
            guard maxExpansion >= 1, maxExpansion.isFinite else {
                throw ValidationError("--max-expansion must be a ratio of at least 1, like 100")
            }
        }
        if let maxDecompressed, ExpansionLimit.parseSize(maxDecompressed) == nil {
            throw ValidationError("--max-decompressed \(maxDecompressed): not a size; use bytes or a number with K, M, G or T, like 64G")
        }
    }

    /// The limit the options give, over the configuration's.
    func limit(_ settings: IngestSettings = IngestSettings()) -> ExpansionLimit {
        var limit = ExpansionLimit()
        limit.maxRatio = maxExpansion ?? settings.maxExpansion ?? limit.maxRatio
        let size = maxDecompressed ?? settings.maxDecompressed
        limit.maxBytes = size.flatMap(ExpansionLimit.parseSize) ?? limit.maxBytes
        return limit
    }
}

/// How `funnel ingest`, `funnel run` and `funnel worker` read their files: the kind, the zone of
/// zone-less timestamps, when a file is refused for its rows, the expansion limits. Given, each
/// wins over the configuration's `[ingest]` setting (docs/configuration.md).
struct FileReadingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The kind of every file (\(EventKind.allCases.map(\.name).joined(separator: ", "))); default: its [[ingest.files]] rule's, else from the file name, else each NDJSON line's kind field.", valueName: "kind"))
    var kind: String?

    @Option(name: .customLong("assume-tz"), help: ArgumentHelp("Time zone for timestamps without one (IANA name or offset like +02:00), for every row; default: the [[ingest.files]] rule's, [[ingest.apps]]' or [ingest]'s assume_tz, else reject them.", valueName: "zone"))
    var assumeTimeZone: String?

    @Option(name: .customLong("max-reject-share"), help: ArgumentHelp("Refuse a file when more than this share of its rows is rejected (0 to 1; 1 never refuses a file for its rows); default: max_reject_share in [ingest], else 0.5.", valueName: "share"))
    var maxRejectShare: Double?

    @OptionGroup var expansion: ExpansionOptions

    func validate() throws {
        if let kind, EventKind(rawValue: kind) == nil {
            throw ValidationError("--kind \(kind): not a kind; use one of \(EventKind.allCases.map(\.name).joined(separator: ", "))")
        }
        if let assumeTimeZone, !ReaderOptions.isValidTimeZone(assumeTimeZone) {
            throw ValidationError("--assume-tz \(assumeTimeZone): not a time zone; use an IANA name like Europe/Berlin or an offset like +02:00")
        }
        if let maxRejectShare, !(0...1).contains(maxRejectShare) {
            throw ValidationError("--max-reject-share must be from 0 to 1, like 0.5 (1: never refuse a file for its rows)")
        }
    }

    /// The configuration's `[ingest]` settings with these options over them.
    func reading(_ settings: IngestSettings) -> IngestSettings {
        var reading = settings
        if let maxRejectShare { reading.maxRejectShare = maxRejectShare }
        return reading
    }

    var eventKind: EventKind? { kind.flatMap(EventKind.init(rawValue:)) }
}
