import Foundation

/// The process exit statuses (docs/scheduling.md): 0 success, 1 the job failed, 2 usage error.
/// A batch run that finds another run holding the lock exits with `busy` so cron wrappers can
/// tell "nothing to do now" from a failure.
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    public static let busy: Int32 = 75
}

/// A failure that a command reports to the user as-is: what went wrong and what to do next, and
/// the exit status it ends the process with. The jobs of this target throw it; the CLI prints it.
public struct CommandFailure: Error, CustomStringConvertible {
    public let message: String
    public let exitStatus: Int32

    public init(_ message: String, exitStatus: Int32 = ExitStatus.failure) {
        self.message = message
        self.exitStatus = exitStatus
    }

    public static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message, exitStatus: ExitStatus.usage)
    }

    public var description: String { message }
}
