//! The hosted pages' form fields: a label around its input, the field's error under it, and
//! what a rejected form shows again.

use std::collections::HashMap;

use maud::{Markup, html};

/// What a form shows again after a rejected submission: the values the person may see again
/// (never a card number or an SSN), and what is wrong, by field.
#[derive(Default)]
pub struct Retyped {
    pub values: HashMap<&'static str, String>,
    pub errors: HashMap<String, String>,
    pub form_error: Option<String>,
}

impl Retyped {
    pub fn value(&self, field: &str) -> &str {
        self.values.get(field).map_or("", String::as_str)
    }
}

pub fn field_error(retyped: &Retyped, name: &str) -> Markup {
    html! {
        @if let Some(error) = retyped.errors.get(name) {
            span class="field-error" id=(format!("{name}-error")) role="alert" { (error) }
        }
    }
}

pub fn text_field(
    retyped: &Retyped,
    name: &str,
    label: &str,
    autocomplete: &str,
    inputmode: &str,
    value: &str,
) -> Markup {
    let invalid = retyped.errors.contains_key(name);
    html! {
        label for=(name) {
            (label)
            input type="text" id=(name) name=(name) value=(value) autocomplete=(autocomplete)
                inputmode=(inputmode) maxlength="64" aria-invalid=(invalid)
                aria-describedby=[invalid.then(|| format!("{name}-error"))];
            (field_error(retyped, name))
        }
    }
}

pub fn select_field(
    retyped: &Retyped,
    name: &str,
    label: &str,
    autocomplete: &str,
    options: &[(String, String)],
) -> Markup {
    let invalid = retyped.errors.contains_key(name);
    let chosen = retyped.value(name);
    html! {
        label for=(name) {
            (label)
            select id=(name) name=(name) autocomplete=(autocomplete) aria-invalid=(invalid)
                aria-describedby=[invalid.then(|| format!("{name}-error"))] {
                option value="" selected[chosen.is_empty()] { "Choose…" }
                @for (value, text) in options {
                    option value=(value) selected[value.eq_ignore_ascii_case(chosen)] { (text) }
                }
            }
            (field_error(retyped, name))
        }
    }
}
