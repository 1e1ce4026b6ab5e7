public import Foundation

/// Runs the built `funnel` executable (beside the test bundle in the build directory) as a user
/// would, capturing its exit status and output.
public enum FunnelExecutable {
    /// The `funnel` binary SwiftPM built for this test run.
    public static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appending(path: "funnel")
    }

    /// What a run printed and how it ended.
    public struct Outcome: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs `funnel arguments...` with extra environment variables, waiting for it to exit.
    public static func run(_ arguments: [String], environment: [String: String] = [:],
                           currentDirectory: URL? = nil) throws -> Outcome {
        let process = try start(arguments, environment: environment, currentDirectory: currentDirectory)
        let stdout = (process.standardOutput as! Pipe).fileHandleForReading
        let stderr = (process.standardError as! Pipe).fileHandleForReading
        let collected = Locked<(Data, Data)>((Data(), Data()))
        let group = DispatchGroup()
        for (index, handle) in [stdout, stderr].enumerated() {
            group.enter()
            DispatchQueue.global().async {
                let data = handle.readDataToEndOfFile()
                collected.withLock { value in
                    if index == 0 { value.0 = data } else { value.1 = data }
                }
                group.leave()
            }
        }
        group.wait()
        process.waitUntilExit()
        let (out, err) = collected.withLock { $0 }
        return Outcome(status: process.terminationStatus,
                       stdout: String(decoding: out, as: UTF8.self),
                       stderr: String(decoding: err, as: UTF8.self))
    }

    /// Starts `funnel arguments...` without waiting (in `currentDirectory` when given); its stdout
    /// and stderr are pipes.
    public static func start(_ arguments: [String], environment: [String: String] = [:],
                             currentDirectory: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        var merged = ProcessInfo.processInfo.environment
        for variable in ["DATABASE_URL", "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"] {
            merged[variable] = nil
        }
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
