//! Typical sizes of animals, for a file whose units say nothing true about
//! its size (issue #48 item 7; docs/tool.md "Units"): a cartoon husky
//! exported 3.9 glTF metres long and a T-rex 31 are out of scale in every
//! unit, and so are a stegosaurus and a parasaurolophus of the same pack,
//! which a fixed assumed size made 1.7 m long against their real 9 m.
//! Where a name in the file says what the animal is, its real size is the
//! better guess.

/// An animal's typical largest extent, metres: nose to tail tip for
/// quadrupeds, reptiles and dinosaurs, a snake's length, a standing ape's
/// height. Adults, rounded; a guess within a factor of two is what the
/// unit inference needs.
pub const SIZES: &[(&str, f32)] = &[
    // Dogs and other canids.
    ("husky", 1.2),
    ("shiba", 0.9),
    ("corgi", 0.8),
    ("dog", 1.0),
    ("puppy", 0.5),
    ("wolf", 1.6),
    ("fox", 1.0),
    ("jackal", 1.1),
    ("coyote", 1.3),
    // Cats.
    ("cat", 0.75),
    ("kitten", 0.4),
    ("lion", 2.8),
    ("lioness", 2.4),
    ("tiger", 3.0),
    ("leopard", 2.0),
    ("cheetah", 1.9),
    ("cougar", 2.2),
    ("puma", 2.2),
    ("panther", 2.0),
    ("jaguar", 2.2),
    ("lynx", 1.1),
    ("serval", 1.2),
    // Hoofed animals.
    ("horse", 2.6),
    ("pony", 1.8),
    ("donkey", 2.0),
    ("zebra", 2.5),
    ("deer", 2.0),
    ("stag", 2.2),
    ("reindeer", 2.0),
    ("elk", 2.8),
    ("moose", 3.0),
    ("antelope", 1.8),
    ("gazelle", 1.4),
    ("alpaca", 1.9),
    ("llama", 2.0),
    ("camel", 3.5),
    ("cow", 2.6),
    ("bull", 2.8),
    ("ox", 2.8),
    ("bison", 3.3),
    ("buffalo", 3.2),
    ("goat", 1.4),
    ("sheep", 1.4),
    ("lamb", 1.0),
    ("pig", 1.6),
    ("boar", 1.6),
    ("giraffe", 5.0),
    ("rhino", 4.0),
    ("rhinoceros", 4.0),
    ("hippo", 4.5),
    ("hippopotamus", 4.5),
    ("elephant", 6.0),
    // Other mammals.
    ("bear", 2.2),
    ("panda", 1.6),
    ("kangaroo", 2.3),
    ("monkey", 0.9),
    ("lemur", 0.9),
    ("baboon", 1.3),
    ("gorilla", 1.7),
    ("chimpanzee", 1.4),
    ("squirrel", 0.45),
    ("chipmunk", 0.25),
    ("rabbit", 0.45),
    ("bunny", 0.45),
    ("hare", 0.6),
    ("mouse", 0.15),
    ("rat", 0.4),
    ("hamster", 0.15),
    ("ferret", 0.5),
    ("raccoon", 0.9),
    ("skunk", 0.7),
    ("otter", 1.2),
    ("beaver", 1.1),
    ("badger", 0.9),
    ("hedgehog", 0.3),
    // Reptiles.
    ("crocodile", 4.5),
    ("alligator", 4.0),
    ("lizard", 0.4),
    ("gecko", 0.25),
    ("iguana", 1.5),
    ("chameleon", 0.5),
    ("komodo", 2.6),
    ("turtle", 0.8),
    ("snake", 2.0),
    ("python", 4.0),
    ("cobra", 2.5),
    ("viper", 1.0),
    // Dinosaurs.
    ("trex", 12.0),
    ("tyrannosaurus", 12.0),
    ("velociraptor", 2.0),
    ("raptor", 2.0),
    ("stegosaurus", 9.0),
    ("triceratops", 8.5),
    ("parasaurolophus", 9.5),
    ("apatosaurus", 22.0),
    ("brontosaurus", 22.0),
    ("diplodocus", 25.0),
    ("brachiosaurus", 22.0),
    ("ankylosaurus", 7.0),
    ("spinosaurus", 15.0),
    ("allosaurus", 9.5),
    ("dilophosaurus", 7.0),
    ("pachycephalosaurus", 4.5),
];

/// The animal a list of names (the file's name, its meshes', nodes' and
/// clips', in that order of trust) says the character is, and its size in
/// metres: the first name that holds a known animal's name, a whole word
/// of it before a part of a word ("Fox_pxltiger", a fox by the artist
/// pxltiger, is a fox, not a tiger), then the longest ("reindeer" before
/// "deer"). Names are compared in
/// lower case with everything but letters dropped ("TRex_Run" and "trex"
/// alike); a name of four letters or fewer must be a whole word of the
/// name, or two words written apart ("T-Rex"; words split at non-letters
/// and lower-to-upper case changes), so that "cat" is not found in
/// "location" nor "rat" in "Armature".
#[must_use]
pub fn known_size<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<(&'static str, f32)> {
    names.into_iter().find_map(|name| {
        let squashed: String = name
            .chars()
            .filter(char::is_ascii_alphabetic)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let words = words(name);
        // A word, or two words written apart ("T-Rex").
        let whole = |animal: &str| {
            words.iter().any(|w| w == animal) || words.windows(2).any(|w| w.concat() == animal)
        };
        SIZES
            .iter()
            .filter(|(animal, _)| whole(animal) || (animal.len() > 4 && squashed.contains(animal)))
            .max_by_key(|(animal, _)| (whole(animal), animal.len()))
            .copied()
    })
}

/// `name`'s words, lower case: split at every character that is not a
/// letter and where a lower-case letter is followed by an upper-case one
/// ("ShibaInu" → shiba, inu; "TRex_Run" → trex, run).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphabetic() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_ascii_lowercase();
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_as_animals_by_whole_words_or_long_names() {
        let size = |names: &[&str]| known_size(names.iter().copied()).map(|(a, _)| a);
        assert_eq!(size(&["Stegosaurus"]), Some("stegosaurus"));
        assert_eq!(size(&["Armature|TRex_Run"]), Some("trex"));
        assert_eq!(size(&["T-Rex"]), Some("trex"));
        assert_eq!(size(&["Armature|T-Rex_Run"]), Some("trex"));
        assert_eq!(size(&["ShibaInu"]), Some("shiba"));
        assert_eq!(size(&["Reindeer_Idle"]), Some("reindeer"));
        assert_eq!(size(&["Lioness"]), Some("lioness"));
        assert_eq!(size(&["Cat"]), Some("cat"));
        // A whole word before a part of one.
        assert_eq!(size(&["Fox_pxltiger"]), Some("fox"));
        assert_eq!(size(&["pxltiger"]), Some("tiger"));
        // Short names only as whole words.
        assert_eq!(size(&["AnimalArmature", "Location", "Body"]), None);
        assert_eq!(size(&["Pirate", "Scatter"]), None);
        // The first name that holds one wins.
        assert_eq!(size(&["Character", "Wolf", "Fox"]), Some("wolf"));
        assert_eq!(size(&["Fox", "Wolf"]), Some("fox"));
        assert_eq!(words("TRex_Run"), ["trex", "run"]);
        assert_eq!(words("ShibaInu.glb"), ["shiba", "inu", "glb"]);
    }
}
