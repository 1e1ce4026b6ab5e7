import FunnelCalendar

extension CivilTime {
    /// 1970-01-01T00:00:00Z, the Unix epoch: the earliest instant funnel accepts. Historical
    /// exports (older apps, public data sets) go back decades; before the epoch, a timestamp is
    /// far more likely a broken default than data.
    static let earliestMicros: Int64 = 0
}
