/// Display names for common vaccine (CVX) and laboratory (LOINC) codes. Minimized cards carry no
/// `Coding.display` (rule 27), so summaries name items from these tables and fall back to the code.
///
/// Only codes whose meaning is certain are listed.
public enum SHCCodeNames {
    /// The CVX code system URI.
    public static let cvxSystem = "http://hl7.org/fhir/sid/cvx"
    /// The LOINC code system URI.
    public static let loincSystem = "http://loinc.org"
    /// The SNOMED CT code system URI.
    public static let snomedSystem = "http://snomed.info/sct"

    /// Vaccine names by CVX code.
    public static let cvx: [String: String] = [
        "03": "MMR",
        "20": "DTaP",
        "21": "Varicella",
        "33": "Pneumococcal polysaccharide PPV23",
        "88": "Influenza, unspecified formulation",
        "115": "Tdap",
        "133": "Pneumococcal conjugate PCV13",
        "140": "Influenza, seasonal, injectable, preservative free",
        "141": "Influenza, seasonal, injectable",
        "187": "Zoster recombinant",
        "207": "Moderna COVID-19 vaccine",
        "208": "Pfizer-BioNTech COVID-19 vaccine",
        "210": "AstraZeneca COVID-19 vaccine",
        "211": "Novavax COVID-19 vaccine",
        "212": "Janssen COVID-19 vaccine",
        "213": "COVID-19 vaccine, unspecified formulation",
        "217": "Pfizer-BioNTech COVID-19 vaccine (12+ years, tris-sucrose)",
        "218": "Pfizer-BioNTech COVID-19 vaccine (5-11 years, tris-sucrose)",
        "219": "Pfizer-BioNTech COVID-19 vaccine (6 months-4 years, tris-sucrose)",
        "221": "Moderna COVID-19 vaccine (50 mcg/0.5 mL)",
        "228": "Moderna COVID-19 vaccine (6 months-5 years)",
        "229": "Moderna COVID-19 vaccine, bivalent",
        "230": "Moderna COVID-19 vaccine, bivalent (6 months-5 years)",
        "300": "Pfizer-BioNTech COVID-19 vaccine, bivalent (12+ years)",
        "301": "Pfizer-BioNTech COVID-19 vaccine, bivalent (5-11 years)",
        "302": "Pfizer-BioNTech COVID-19 vaccine, bivalent (6 months-4 years)",
    ]

    /// Laboratory test names by LOINC code (SARS-CoV-2 tests).
    public static let loinc: [String: String] = [
        "94309-2": "SARS-CoV-2 RNA NAA+probe (specimen)",
        "94500-6": "SARS-CoV-2 RNA NAA+probe (respiratory specimen)",
        "94531-1": "SARS-CoV-2 RNA panel NAA+probe (respiratory specimen)",
        "94534-5": "SARS-CoV-2 RdRp gene NAA+probe (respiratory specimen)",
        "94558-4": "SARS-CoV-2 antigen rapid immunoassay (respiratory specimen)",
        "94563-4": "SARS-CoV-2 IgG antibody immunoassay (serum or plasma)",
        "94759-8": "SARS-CoV-2 RNA NAA+probe (nasopharynx)",
        "94845-5": "SARS-CoV-2 RNA NAA+probe (saliva)",
    ]
}
