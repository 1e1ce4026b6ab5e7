import Foundation

/// The process exit statuses (docs/scheduling.md): 0 success, 1 the job failed, 2 usage error.
/// A batch run that finds another run holding the lock exits with `busy` so cron wrappers can
/// tell "nothing to do now" from a failure.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let busy: Int32 = 75
}

/// A failure that a command reports to the user as-is: what went wrong and what to do next.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let exitStatus: Int32

    init(_ message: String, exitStatus: Int32 = ExitStatus.failure) {
        self.message = message
        self.exitStatus = exitStatus
    }

    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message, exitStatus: ExitStatus.usage)
    }

    var description: String { message }
}

extension FileHandle {
    /// Writes a message to standard error, unbuffered.
    static func standardErrorWrite(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
