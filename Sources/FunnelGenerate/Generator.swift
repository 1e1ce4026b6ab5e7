/// `funnel generate`: realistic synthetic input files with planted ground truth.
public enum Generator {
    /// Generates the data set the options describe into `options.outputDirectory`, with
    /// `truth.json` beside the files. The same options always write the same bytes.
    public static func run(_ options: GeneratorOptions) throws -> GenerationResult {
        if let problem = options.problem { throw GeneratorError.invalidOptions(problem) }
        return try DataGenerator(options: options).run()
    }
}
