/// One `ux` telemetry row of a session, as the friction detectors read it.
///
/// Optional values are absent in the input (NULL); geometry is in window points.
public struct FrictionEvent: Sendable, Equatable {
    /// Seconds since the Unix epoch.
    public var time: Double
    public var screen: String
    public var type: String
    public var phase: String?
    public var orientation: String?
    public var feedbackShown: Bool?
    public var permission: String?
    public var guidanceShown: Bool?
    public var field: String?
    public var messageShown: Bool?
    public var badState: Bool?
    public var inputMode: String?
    /// The keyboard's end frame.
    public var keyboard: FrictionRect?
    /// The focused input field.
    public var focus: FrictionRect?
    /// The screen's primary button.
    public var action: FrictionRect?
    public var caretY: Double?
    public var screenWidth: Double?
    public var screenHeight: Double?

    public init(time: Double, screen: String, type: String, phase: String? = nil, orientation: String? = nil,
                feedbackShown: Bool? = nil, permission: String? = nil, guidanceShown: Bool? = nil,
                field: String? = nil, messageShown: Bool? = nil, badState: Bool? = nil, inputMode: String? = nil,
                keyboard: FrictionRect? = nil, focus: FrictionRect? = nil, action: FrictionRect? = nil,
                caretY: Double? = nil, screenWidth: Double? = nil, screenHeight: Double? = nil) {
        self.time = time
        self.screen = screen
        self.type = type
        self.phase = phase
        self.orientation = orientation
        self.feedbackShown = feedbackShown
        self.permission = permission
        self.guidanceShown = guidanceShown
        self.field = field
        self.messageShown = messageShown
        self.badState = badState
        self.inputMode = inputMode
        self.keyboard = keyboard
        self.focus = focus
        self.action = action
        self.caretY = caretY
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
    }

    /// The window bounds, when the row carries them.
    public var window: FrictionRect? {
        guard let screenWidth, let screenHeight, screenWidth > 0, screenHeight > 0 else { return nil }
        return FrictionRect(x: 0, y: 0, width: screenWidth, height: screenHeight)
    }

    /// `portrait` or `landscape` (the side does not matter for layout), or nil when unknown.
    public var orientationClass: String? {
        guard let orientation else { return nil }
        return orientation.hasPrefix("landscape") ? "landscape" : orientation.hasPrefix("portrait") ? "portrait" : orientation
    }
}
