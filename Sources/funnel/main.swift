// Entry point: parses the command line and maps every outcome to the exit codes of
// docs/scheduling.md (0 success, 1 job failure, 2 usage error); argument-parser's own usage
// code 64 becomes 2.
import ArgumentParser
import Foundation
import FunnelPipeline

do {
    var command = try Funnel.parseAsRoot()
    try command.run()
} catch let failure as CommandFailure {
    FileHandle.standardErrorWrite("funnel: \(failure.message)\n")
    exit(failure.exitStatus)
} catch {
    let code = Funnel.exitCode(for: error)
    if code == .validationFailure {
        FileHandle.standardErrorWrite(Funnel.fullMessage(for: error) + "\n")
        exit(ExitStatus.usage)
    }
    if code == .success || error is ExitCode || error is CleanExit {
        Funnel.exit(withError: error)
    }
    FileHandle.standardErrorWrite("funnel: \(String(describing: error))\n")
    exit(ExitStatus.failure)
}
