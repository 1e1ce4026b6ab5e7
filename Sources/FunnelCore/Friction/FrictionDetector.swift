/// Runs every friction detector over one session's `ux` events (ordered by time).
///
/// Besides keyboard occlusions (see `KeyboardOcclusionDetector`):
/// - `network_error_no_feedback`: a network error with `feedback_shown` false;
/// - `permission_denied_no_guidance`: a denial with `guidance_shown` false and no progress on
///   that screen afterwards (no keyboard, validation or touch activity there later);
/// - `validation_error_silent`: a refused value with `message_shown` false;
/// - `multi_touch_bad_state`: simultaneous presses that left a bad state.
/// A NULL flag is unknown and never an episode.
public struct FrictionDetector: Sendable {
    public var keyboard: KeyboardOcclusionDetector

    public init(keyboard: KeyboardOcclusionDetector = KeyboardOcclusionDetector()) {
        self.keyboard = keyboard
    }

    private static let progressTypes: Set<String> = ["keyboard", "validation_error", "multi_touch"]

    /// Every episode of the session, ordered by time.
    public func episodes(in events: [FrictionEvent]) -> [FrictionEpisode] {
        var found = keyboard.episodes(in: events)
        var pendingDenials: [String: FrictionEpisode] = [:]
        var inputMode: String?
        for event in events {
            if let mode = event.inputMode { inputMode = mode }
            if Self.progressTypes.contains(event.type) {
                pendingDenials[event.screen] = nil
            }
            func episode(_ type: FrictionType) -> FrictionEpisode {
                FrictionEpisode(screen: event.screen, type: type, time: event.time,
                                inputMode: event.inputMode ?? inputMode, orientation: event.orientationClass)
            }
            switch event.type {
            case "network_error" where event.feedbackShown == false:
                found.append(episode(.networkErrorNoFeedback))
            case "validation_error" where event.messageShown == false:
                found.append(episode(.validationErrorSilent))
            case "multi_touch" where event.badState == true:
                found.append(episode(.multiTouchBadState))
            case "permission_denied" where event.guidanceShown == false:
                if pendingDenials[event.screen] == nil {
                    pendingDenials[event.screen] = episode(.permissionDeniedNoGuidance)
                }
            default:
                break
            }
        }
        found.append(contentsOf: pendingDenials.values)
        return found.sorted { ($0.time, $0.type.rawValue) < ($1.time, $1.type.rawValue) }
    }
}
