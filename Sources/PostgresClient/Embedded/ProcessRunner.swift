import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a server program to completion, optionally as another account (via `runuser`), with
/// its output captured in a temporary file rather than a pipe.
///
/// Uses `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose wait never returns
/// once `pg_ctl start` has left a daemonised server behind.
struct ProcessRunner {
    /// The account to run as, when funnel runs as root; nil runs as ourselves.
    let account: String?
    let workingDirectory: URL

    struct Outcome {
        let status: Int32
        let output: String
    }

    func run(_ program: URL, _ arguments: [String]) throws -> Outcome {
        // env -C sets the working directory for the child (glibc hides posix_spawn's own chdir).
        let executable = "/usr/bin/env"
        let argv = ["env", "-C", workingDirectory.path]
            + (account.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [program.path]
        let capture = FileManager.default.temporaryDirectory.appending(path: "funnel-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: capture) }

        Self.markInheritedDescriptorsCloseOnExec()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, capture.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = withCStrings(argv + arguments) { argvPointers in
            withCStrings(environment) { environmentPointers in
                posix_spawn(&pid, executable, &actions, nil, argvPointers, environmentPointers)
            }
        }
        guard status == 0 else {
            throw EmbeddedClusterError.commandFailed(command: program.lastPathComponent,
                                                     output: "cannot start it: \(String(cString: strerror(status)))")
        }
        var waitStatus: Int32 = 0
        while waitpid(pid, &waitStatus, 0) < 0 {
            guard errno == EINTR else { break }
        }
        let exitStatus: Int32 = (waitStatus & 0x7f) == 0 ? (waitStatus >> 8) & 0xff : 128 + (waitStatus & 0x7f)
        let output = (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
        return Outcome(status: exitStatus, output: output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Runs the program and throws `commandFailed` with its output when it exits non-zero.
    @discardableResult
    func check(_ program: URL, _ arguments: [String]) throws -> String {
        let outcome = try run(program, arguments)
        guard outcome.status == 0 else {
            throw EmbeddedClusterError.commandFailed(command: program.lastPathComponent, output: outcome.output)
        }
        return outcome.output
    }

    /// A server started by `pg_ctl` outlives us and keeps every descriptor it inherits. If one is
    /// the write end of a pipe our own parent reads (a test harness, a job runner), that reader
    /// would never see end-of-file; so descriptors above stderr never reach our children.
    private static func markInheritedDescriptorsCloseOnExec() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for entry in entries {
            guard let descriptor = Int32(entry), descriptor > 2 else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 {
                _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC)
            }
        }
    }

    private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
