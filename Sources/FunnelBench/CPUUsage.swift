import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PostgresClient

/// Processor time, as `funnel bench daily` reads it to say how busy a run kept the cores: this
/// process's (every thread), the DuckDB baseline's (a finished child process), and, when the
/// database server runs on this machine, the server's: its postmaster, the children it has
/// reaped (every backend that ended) and the children still running (the checkpointer, the WAL
/// writer, open sessions). Linux only (`/proc`); elsewhere the server's time is unknown.
struct CPUUsage {
    /// User plus system seconds of this process, or of its finished children.
    static func processSeconds(children: Bool = false) -> Double {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The processor time used so far: the server's (nil when it runs elsewhere) and ours.
    struct Reading {
        let server: Double?
        let own: Double

        init(_ server: Server?) {
            self.server = server?.seconds()
            own = CPUUsage.processSeconds()
        }

        /// The time used since `earlier`; nil when the server's is not known.
        func since(_ earlier: Reading) -> Used? {
            guard let server, let before = earlier.server else { return nil }
            return Used(server: server - before, own: own - earlier.own)
        }
    }

    /// Processor time used between two readings, the server's and ours.
    struct Used {
        let server: Double
        let own: Double
        var total: Double { server + own }
    }

    /// The server's processes on this machine, found from the backend serving `connection`
    /// (its parent is the postmaster); nil when the server runs elsewhere.
    struct Server {
        let postmasterID: Int32

        init?(serving connection: PostgresConnection) {
            guard let backend = try? connection.query("select pg_backend_pid()").scalar(Int32.self),
                  let fields = CPUUsage.statFields(of: backend), fields.count > 1, let parent = Int32(fields[1]),
                  EmbeddedCluster.isPostgresProcess(backend), EmbeddedCluster.isPostgresProcess(parent)
            else { return nil }
            postmasterID = parent
        }

        /// User plus system seconds of the postmaster, its reaped children and its live ones;
        /// nil once the postmaster is gone. A child reaped while its siblings are read would be
        /// counted twice or not at all, so the reading is taken again until the reaped children's
        /// time did not move during it.
        func seconds() -> Double? {
            for _ in 0..<10 {
                guard let before = postmasterTicks() else { return nil }
                var ticks = before.own + before.reaped
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
                for entry in entries {
                    guard let id = Int32(entry), id != postmasterID, let fields = CPUUsage.statFields(of: id),
                          fields.count > 12, fields[1] == String(postmasterID) else { continue }
                    ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
                }
                guard let after = postmasterTicks() else { return nil }
                if after.reaped == before.reaped { return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK))) }
            }
            return nil
        }

        /// The postmaster's own clock ticks and those of the children it has reaped.
        private func postmasterTicks() -> (own: Int, reaped: Int)? {
            guard let fields = CPUUsage.statFields(of: postmasterID), fields.count > 14 else { return nil }
            let ticks = [11, 12, 13, 14].map { Int(fields[$0]) ?? 0 }
            return (ticks[0] + ticks[1], ticks[2] + ticks[3])
        }
    }

    /// The fields of `/proc/ID/stat` after the command name, from the state on (field 3 of
    /// proc(5) is index 0: the parent is index 1, utime 11, stime 12, cutime 13, cstime 14).
    static func statFields(of id: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }
}
