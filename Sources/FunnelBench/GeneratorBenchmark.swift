import FunnelGenerate
import Foundation

/// `funnel bench generate`: generation throughput beside the raw write speed of the same bytes.
///
/// The baseline copies the generated files, byte for byte in 1 MiB chunks, to a new file in the
/// same directory (and so the same disk), which is what the generator would cost if formatting
/// and modelling were free.
public enum GeneratorBenchmark {
    /// Measured figures of one benchmark run.
    public struct Report: Sendable {
        public var users: Int
        public var days: Int
        public var rows: Int
        public var bytes: Int
        public var generateSeconds: Double
        public var copySeconds: Double
        public var rowsPerSecond: Double { generateSeconds > 0 ? Double(rows) / generateSeconds : 0 }
        public var generateMBPerSecond: Double { generateSeconds > 0 ? Double(bytes) / 1e6 / generateSeconds : 0 }
        public var copyMBPerSecond: Double { copySeconds > 0 ? Double(bytes) / 1e6 / copySeconds : 0 }
        /// Rows per second the disk alone would allow at the same bytes per row.
        public var copyRowsPerSecond: Double { copySeconds > 0 ? Double(rows) / copySeconds : 0 }

        /// The human summary `funnel bench generate` prints.
        public var summary: String {
            func f(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
            return """
            generate: \(users) users x \(days) days
              generator : \(rows) rows, \(f(Double(bytes) / 1e6, 1)) MB in \(f(generateSeconds)) s = \
            \(f(rowsPerSecond / 1e6)) M rows/s, \(f(generateMBPerSecond, 1)) MB/s
              baseline  : copying the same \(f(Double(bytes) / 1e6, 1)) MB in \(f(copySeconds)) s = \
            \(f(copyMBPerSecond, 1)) MB/s (\(f(copyRowsPerSecond / 1e6)) M rows/s equivalent)
              ratio     : generation runs at \(f(copySeconds > 0 ? generateSeconds > 0 ? copySeconds / generateSeconds * 100 : 0 : 0, 0))% of raw write speed
            """
        }
    }

    /// Generates `users` x `days` (CSV, no gzip) into a temporary directory, times it, then times
    /// copying the produced files; removes the directory afterwards.
    public static func run(users: Int, days: Int, seed: UInt64 = 1) throws -> Report {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("funnel-bench-generate-\(ProcessInfo.processInfo.processIdentifier)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let options = GeneratorOptions(outputDirectory: directory, users: users, days: days, seed: seed)
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try Generator.run(options)
        let generated = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9

        let copyStart = DispatchTime.now().uptimeNanoseconds
        let target = directory + "/baseline.copy"
        guard let output = fopen(target, "wb") else { throw GeneratorError.cannotWrite(target) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: OutputFile.chunk, alignment: 16)
        defer { buffer.deallocate() }
        for file in result.files {
            guard let input = fopen(directory + "/" + file.name, "rb") else { continue }
            while true {
                let read = fread(buffer, 1, OutputFile.chunk, input)
                if read == 0 { break }
                fwrite(buffer, 1, read, output)
            }
            fclose(input)
        }
        fflush(output)
        fsync(fileno(output))
        fclose(output)
        let copied = Double(DispatchTime.now().uptimeNanoseconds - copyStart) / 1e9
        return Report(users: users, days: days, rows: result.totalRows, bytes: result.totalBytes,
                      generateSeconds: generated, copySeconds: copied)
    }
}
