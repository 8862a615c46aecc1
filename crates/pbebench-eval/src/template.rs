//! A run's prompt template: pbebench's [`PromptTemplate`] (a built-in one by name, or a
//! file), with the warnings the run prints and what its manifest records of it.

use pbebench::{Instance, PromptTemplate, TemplateLoadError};
use serde_json::{json, Value};
use std::path::Path;

/// A run's prompt template: pbebench's [`PromptTemplate`] (its file, text and
/// placeholders), and what the run's manifest says of it.
#[derive(Debug, Clone)]
pub struct Template(PromptTemplate);

impl Template {
    /// Loads and checks a built-in template by name (`authors`) or a template file
    /// ([`PromptTemplate::named_or_file`]), or takes the default template when `None`.
    pub fn load(spec: Option<&Path>) -> Result<Self, TemplateLoadError> {
        spec.map_or_else(
            || Ok(PromptTemplate::default()),
            PromptTemplate::named_or_file,
        )
        .map(Template)
    }

    /// What looks wrong with the template ([`PromptTemplate::warnings`]), naming its file.
    pub fn warnings(&self) -> Vec<String> {
        let file = self.0.file().map_or_else(
            || "the default template".to_owned(),
            |f| f.display().to_string(),
        );
        self.0
            .warnings()
            .into_iter()
            .map(|w| format!("--template {file}: {w}"))
            .collect()
    }

    /// The prompt of one instance.
    pub fn render(&self, instance: &Instance) -> String {
        self.0.render(instance)
    }

    /// What identifies the template in a manifest: its file (if any) and the SHA-256 of
    /// its text, since a changed template changes answers.
    pub fn describe(&self) -> Value {
        json!({
            "file": self.0.file().map(|f| f.display().to_string()),
            "sha256": pbebench_io::sha256_hex(self.0.text().as_bytes()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_load_by_name_or_file() {
        let authors = Template::load(Some(Path::new("authors"))).unwrap();
        assert_eq!(
            authors.0.text(),
            PromptTemplate::built_in("authors").unwrap().text()
        );
        assert_eq!(
            Template::load(None).unwrap().0.text(),
            PromptTemplate::default().text()
        );
        let missing = Path::new("no/such/template.txt");
        assert!(matches!(
            Template::load(Some(missing)),
            Err(TemplateLoadError::Read { path, source })
                if path == missing && source.kind() == std::io::ErrorKind::NotFound
        ));
    }
}
