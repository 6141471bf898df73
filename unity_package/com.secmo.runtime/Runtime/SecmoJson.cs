// A small JSON reader and writer for the rig-settings text (editor-time:
// import, export and the typed settings' text for the native library). Not
// used per frame. Objects read as Dictionary<string, object> (keys in file
// order are not needed), arrays as List<object>, numbers as double, plus
// string, bool and null.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Secmo.Unity
{
    public static class SecmoJson
    {
        /// <summary>Parses `text`; on failure returns false with the line and column in `error`.</summary>
        public static bool TryParse(string text, out object value, out string error)
        {
            var reader = new Reader(text ?? "");
            try
            {
                reader.SkipSpace();
                value = reader.Value();
                reader.SkipSpace();
                if (!reader.AtEnd) throw reader.Fail("text after the JSON value");
                error = null;
                return true;
            }
            catch (FormatException e)
            {
                value = null;
                error = e.Message;
                return false;
            }
        }

        sealed class Reader
        {
            readonly string s;
            int i;
            public Reader(string text) { s = text; }
            public bool AtEnd => i >= s.Length;

            public FormatException Fail(string what)
            {
                int line = 1, column = 1;
                for (int k = 0; k < i && k < s.Length; k++)
                {
                    if (s[k] == '\n') { line++; column = 1; }
                    else column++;
                }
                return new FormatException("line " + line + ", column " + column + ": " + what);
            }

            public void SkipSpace()
            {
                while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
            }

            public object Value()
            {
                if (AtEnd) throw Fail("a value was expected");
                char c = s[i];
                if (c == '{') return Object();
                if (c == '[') return Array();
                if (c == '"') return String();
                if (c == 't') return Word("true", true);
                if (c == 'f') return Word("false", false);
                if (c == 'n') return Word("null", null);
                if (c == '-' || (c >= '0' && c <= '9')) return Number();
                throw Fail("unexpected '" + c + "'");
            }

            object Word(string word, object value)
            {
                if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0) throw Fail("unexpected text");
                i += word.Length;
                return value;
            }

            Dictionary<string, object> Object()
            {
                var o = new Dictionary<string, object>();
                i++; // {
                SkipSpace();
                if (i < s.Length && s[i] == '}') { i++; return o; }
                while (true)
                {
                    SkipSpace();
                    if (AtEnd || s[i] != '"') throw Fail("a key in quotes was expected");
                    string key = String();
                    SkipSpace();
                    if (AtEnd || s[i] != ':') throw Fail("':' was expected");
                    i++;
                    SkipSpace();
                    if (o.ContainsKey(key)) throw Fail("the key \"" + key + "\" appears twice");
                    o[key] = Value();
                    SkipSpace();
                    if (AtEnd) throw Fail("'}' was expected");
                    if (s[i] == ',') { i++; continue; }
                    if (s[i] == '}') { i++; return o; }
                    throw Fail("',' or '}' was expected");
                }
            }

            List<object> Array()
            {
                var a = new List<object>();
                i++; // [
                SkipSpace();
                if (i < s.Length && s[i] == ']') { i++; return a; }
                while (true)
                {
                    SkipSpace();
                    a.Add(Value());
                    SkipSpace();
                    if (AtEnd) throw Fail("']' was expected");
                    if (s[i] == ',') { i++; continue; }
                    if (s[i] == ']') { i++; return a; }
                    throw Fail("',' or ']' was expected");
                }
            }

            string String()
            {
                var b = new StringBuilder();
                i++; // opening quote
                while (true)
                {
                    if (AtEnd) throw Fail("the string has no closing quote");
                    char c = s[i++];
                    if (c == '"') return b.ToString();
                    if (c != '\\') { b.Append(c); continue; }
                    if (AtEnd) throw Fail("an escape was cut off");
                    char e = s[i++];
                    switch (e)
                    {
                        case '"': b.Append('"'); break;
                        case '\\': b.Append('\\'); break;
                        case '/': b.Append('/'); break;
                        case 'b': b.Append('\b'); break;
                        case 'f': b.Append('\f'); break;
                        case 'n': b.Append('\n'); break;
                        case 'r': b.Append('\r'); break;
                        case 't': b.Append('\t'); break;
                        case 'u':
                            if (i + 4 > s.Length) throw Fail("a \\u escape was cut off");
                            b.Append((char)int.Parse(s.Substring(i, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
                            i += 4;
                            break;
                        default: throw Fail("unknown escape \\" + e);
                    }
                }
            }

            double Number()
            {
                int start = i;
                while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
                if (!double.TryParse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture, out double d))
                    throw Fail("a number was expected");
                return d;
            }
        }

        /// <summary>Writes a value tree (as TryParse returns) as indented JSON.</summary>
        public static string Write(object value)
        {
            var b = new StringBuilder();
            Write(b, value, 0);
            b.Append('\n');
            return b.ToString();
        }

        static void Write(StringBuilder b, object value, int indent)
        {
            if (value == null) b.Append("null");
            else if (value is bool) b.Append((bool)value ? "true" : "false");
            else if (value is string) Quote(b, (string)value);
            else if (value is double) b.Append(Number((double)value));
            else if (value is float) b.Append(Number((float)value));
            else if (value is int) b.Append(((int)value).ToString(CultureInfo.InvariantCulture));
            else if (value is IDictionary<string, object>)
            {
                var o = (IDictionary<string, object>)value;
                if (o.Count == 0) { b.Append("{}"); return; }
                b.Append("{\n");
                int k = 0;
                foreach (var pair in o)
                {
                    b.Append(' ', 2 * (indent + 1));
                    Quote(b, pair.Key);
                    b.Append(": ");
                    Write(b, pair.Value, indent + 1);
                    b.Append(++k < o.Count ? ",\n" : "\n");
                }
                b.Append(' ', 2 * indent).Append('}');
            }
            else if (value is IList<object>)
            {
                var a = (IList<object>)value;
                b.Append('[');
                for (int j = 0; j < a.Count; j++)
                {
                    if (j > 0) b.Append(", ");
                    Write(b, a[j], indent + 1);
                }
                b.Append(']');
            }
            else throw new ArgumentException("cannot write a " + value.GetType().Name + " as JSON");
        }

        // Shortest text that reads back as the same float (the settings are float32).
        static string Number(double d)
        {
            if (double.IsNaN(d) || double.IsInfinity(d)) throw new ArgumentException("JSON has no NaN or infinity");
            float f = (float)d;
            string r = f.ToString("R", CultureInfo.InvariantCulture);
            return r;
        }

        static void Quote(StringBuilder b, string text)
        {
            b.Append('"');
            foreach (char c in text)
            {
                switch (c)
                {
                    case '"': b.Append("\\\""); break;
                    case '\\': b.Append("\\\\"); break;
                    case '\n': b.Append("\\n"); break;
                    case '\r': b.Append("\\r"); break;
                    case '\t': b.Append("\\t"); break;
                    default:
                        if (c < 0x20) b.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else b.Append(c);
                        break;
                }
            }
            b.Append('"');
        }
    }
}
