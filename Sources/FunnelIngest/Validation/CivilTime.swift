import FunnelCalendar

extension CivilTime {
    /// 2000-01-01T00:00:00Z in microseconds since the epoch: the earliest instant funnel accepts.
    static let earliestMicros: Int64 = 946_684_800 * 1_000_000
}
