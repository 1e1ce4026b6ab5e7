import ArgumentParser
import FunnelIngest

/// `--max-expansion` and `--max-decompressed`: how far a gzip input may expand before it is
/// refused as a likely decompression bomb (shared by `ingest`, `worker` and `run`).
struct ExpansionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Refuse a .gz file that expands past this many times its compressed size (checked once it has given 64 MiB).",
        valueName: "ratio"))
    var maxExpansion: Double = ExpansionLimit().maxRatio

    @Option(help: ArgumentHelp("Refuse a .gz file that expands past this size in all (K, M, G, T suffixes).",
                               valueName: "size"))
    var maxDecompressed: String = "64G"

    func validate() throws {
        guard maxExpansion >= 1, maxExpansion.isFinite else {
            throw ValidationError("--max-expansion must be a ratio of at least 1, like 100")
        }
        guard ExpansionLimit.parseSize(maxDecompressed) != nil else {
            throw ValidationError("--max-decompressed \(maxDecompressed): not a size; use bytes or a number with K, M, G or T, like 64G")
        }
    }

    /// The limit the options give.
    var limit: ExpansionLimit {
        var limit = ExpansionLimit()
        limit.maxRatio = maxExpansion
        limit.maxBytes = ExpansionLimit.parseSize(maxDecompressed) ?? limit.maxBytes
        return limit
    }
}
