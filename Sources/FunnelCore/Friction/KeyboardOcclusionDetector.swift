/// Finds where the keyboard hides the focused field, the primary button or the caret line in
/// one session, normalising iOS keyboard notifications as docs/metrics.md ("Normalising the
/// keyboard") describes:
/// - only `did_show` and `did_change_frame` end frames say where the keyboard is (`will_*`
///   notifications are intentions, and their frames may be zero while an undocked keyboard moves);
/// - a zero frame is unknown: it neither shows nor hides the keyboard;
/// - `did_hide` inside a rotation (between rotation will and did, widened by a short window) is
///   not a user action, so an occlusion that survives the rotation stays one episode;
/// - a `did_change_frame` identical to the previous one (merge/split) is a duplicate;
/// - a frame fully inside the window is the visible keyboard; a frame that overhangs the bottom
///   (a hardware keyboard's accessory view united with the hidden keyboard) counts only for its
///   visible part; a frame outside the window is hidden.
/// An episode starts when a target becomes covered and lasts until the keyboard stops covering it.
public struct KeyboardOcclusionDetector: Sendable {
    /// Seconds around a rotation's will/did inside which keyboard show/hide are rotation artefacts.
    public var rotationWindowSeconds: Double

    public init(rotationWindowSeconds: Double = 1.0) {
        self.rotationWindowSeconds = rotationWindowSeconds
    }

    private struct Layout: Equatable {
        var focus: FrictionRect?
        var action: FrictionRect?
        var caretY: Double?
        var window: FrictionRect?
    }

    /// The occlusion episodes of one session's events, in time order.
    public func episodes(in events: [FrictionEvent]) -> [FrictionEpisode] {
        let rotations = rotationIntervals(events)
        var episodes: [FrictionEpisode] = []
        var screen: String?
        var layout: Layout?
        var covering: Set<FrictionType> = []
        var lastDidChange: (frame: FrictionRect, layout: Layout?)?
        var inputMode: String?

        for event in events {
            if event.screen != screen {
                screen = event.screen
                layout = nil
                covering = []
                lastDidChange = nil
            }
            if let mode = event.inputMode { inputMode = mode }
            if event.focus != nil || event.action != nil || event.caretY != nil {
                layout = Layout(focus: event.focus, action: event.action, caretY: event.caretY, window: event.window)
            }
            if event.type == "rotation" {
                // The old frame is in the old orientation's coordinates: unknown until a new one.
                lastDidChange = nil
                continue
            }
            guard event.type == "keyboard", let phase = event.phase else { continue }
            switch phase {
            case "did_hide":
                if rotations.contains(where: { $0.contains(event.time) }) { continue }
                covering = []
                lastDidChange = nil
            case "did_show", "did_change_frame":
                guard let frame = event.keyboard, !frame.isZero else { continue }
                if phase == "did_change_frame" {
                    if let last = lastDidChange, last.frame == frame, last.layout == layout { continue }
                    lastDidChange = (frame, layout)
                }
                guard let window = event.window ?? layout?.window else { continue }
                guard let visible = visiblePart(of: frame, in: window) else {
                    covering = []
                    continue
                }
                guard let layout, layout.window == nil || layout.window == window else { continue }
                for (type, severity) in coverage(by: visible, of: layout) {
                    if let severity {
                        if covering.insert(type).inserted {
                            episodes.append(FrictionEpisode(screen: event.screen, type: type, time: event.time,
                                                            severity: severity, inputMode: event.inputMode ?? inputMode,
                                                            orientation: event.orientationClass))
                        }
                    } else {
                        covering.remove(type)
                    }
                }
            default:
                continue
            }
        }
        return episodes
    }

    /// The on-screen part of a keyboard end frame, or nil when the keyboard is off screen.
    private func visiblePart(of frame: FrictionRect, in window: FrictionRect) -> FrictionRect? {
        if frame.isInside(window) { return frame }
        guard frame.y > window.y, let clipped = frame.intersection(window) else { return nil }
        return clipped
    }

    /// For each target the share of it the keyboard covers, or nil when it is not covered.
    private func coverage(by keyboard: FrictionRect, of layout: Layout) -> [(FrictionType, Double?)] {
        func share(_ target: FrictionRect?) -> Double? {
            guard let target, let shared = keyboard.intersection(target) else { return nil }
            return (shared.width * shared.height) / (target.width * target.height)
        }
        var caret: Double?
        if let caretY = layout.caretY, keyboard.containsLine(y: caretY) {
            let overlapsHorizontally = layout.focus.map {
                keyboard.x < $0.x + $0.width && $0.x < keyboard.x + keyboard.width
            } ?? true
            caret = overlapsHorizontally ? 1 : nil
        }
        return [(.keyboardCoversField, share(layout.focus)), (.keyboardCoversAction, share(layout.action)),
                (.keyboardCoversCaret, caret)]
    }

    /// Time intervals in which keyboard hide/show notifications belong to a rotation.
    private func rotationIntervals(_ events: [FrictionEvent]) -> [ClosedRange<Double>] {
        var intervals: [ClosedRange<Double>] = []
        var openWill: Double?
        for event in events where event.type == "rotation" {
            if event.phase == "will" {
                if let start = openWill { intervals.append(start - rotationWindowSeconds...start + 2 * rotationWindowSeconds) }
                openWill = event.time
            } else if event.phase == "did" {
                let start = openWill ?? event.time
                intervals.append(start - rotationWindowSeconds...event.time + rotationWindowSeconds)
                openWill = nil
            }
        }
        if let start = openWill { intervals.append(start - rotationWindowSeconds...start + 2 * rotationWindowSeconds) }
        return intervals
    }
}
