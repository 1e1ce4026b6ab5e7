import ArgumentParser

/// `funnel bench`: benchmarks that print each figure beside its baseline in the same run.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure throughput and timings beside their baselines.",
        discussion: "Build with 'swift build -c release' (or run 'make bench') for meaningful figures.",
        subcommands: [BenchGenerateCommand.self, BenchIngestCommand.self, BenchComputeCommand.self,
                      BenchDailyCommand.self, BenchQueryCommand.self]
    )
}
